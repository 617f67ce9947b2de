import * as Brand from "effect/Brand"
import type { EnvironmentPolicy } from "../services/SubprocessEnvironment.js"

/**
 * The environment of every process the agent starts (shell commands, hooks, stdio MCP servers,
 * the sandbox's own probe). Built from an allowlist, like Codex's `shell_environment_policy`:
 * our environment holds the server token and provider keys, and a child that could read them
 * could act as the user (switch its own session to `bypass`) or send them off the machine.
 *
 * A `ChildEnvironment` can only be made here, and the spawning code takes nothing else, so no
 * process gets ours by default.
 */
export type ChildEnvironment = Readonly<Record<string, string>> & Brand.Brand<"ChildEnvironment">
const ChildEnvironment = Brand.nominal<ChildEnvironment>()

/** The user passes nothing beyond the fixed allowlist. */
export const FIXED_ONLY: EnvironmentPolicy = { pass: [] }

/** Harmless names every child inherits: where things are, how to talk, which tools to use. */
const ALLOWED: ReadonlySet<string> = new Set([
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "PWD",
  // Without it, bash whose stdin is a socket (a hook's piped input) takes itself for an ssh
  // session and sources ~/.bashrc.
  "SHLVL",
  "TMPDIR",
  "TMP",
  "TEMP",
  "LANG",
  "LANGUAGE",
  "TZ",
  "TERM",
  "COLORTERM",
  "NO_COLOR",
  "FORCE_COLOR",
  "EDITOR",
  "VISUAL",
  "PAGER",
  "JAVA_HOME",
  "GOPATH",
  "GOROOT",
  "CARGO_HOME",
  "RUSTUP_HOME",
  "NVM_DIR",
  "PYENV_ROOT",
  "VIRTUAL_ENV",
  "XDG_RUNTIME_DIR"
])
const ALLOWED_PATTERNS: ReadonlyArray<RegExp> = [/^LC_[A-Z]+$/, /^XDG_[A-Z]+_HOME$/]

/** Names that look like they hold a secret: inherited only when the user names them exactly. */
export const SECRET_LOOKING = /KEY|SECRET|TOKEN|PASSWORD|PASSWD|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE/i

/** Our own variables (the server token among them): never inherited, whatever the user says. */
const OURS = /^CUSTOM_AGENT_/i

/** Whether a child inherits our variable `name` under `policy`. */
export const passes = (name: string, policy: EnvironmentPolicy): boolean => {
  if (OURS.test(name)) return false
  if (policy.pass.includes(name)) return true
  if (SECRET_LOOKING.test(name)) return false
  return ALLOWED.has(name) || ALLOWED_PATTERNS.some((pattern) => pattern.test(name))
}

/**
 * The environment of one child: the variables of `source` (ours) that `policy` passes, then
 * `set`, which the caller chose for this child (a hook's `CLAUDE_PROJECT_DIR`, the `env` the
 * user's MCP configuration gives a server) and which is taken as it is.
 */
export const childEnvironment = (
  policy: EnvironmentPolicy,
  set: Readonly<Record<string, string>> = {},
  source: NodeJS.ProcessEnv = process.env
): ChildEnvironment => {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(source)) {
    if (value !== undefined && passes(name, policy)) out[name] = value
  }
  return ChildEnvironment({ ...out, ...set })
}
