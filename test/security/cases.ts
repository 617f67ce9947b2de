import type { Effect } from "effect"
import { existsSync, readFileSync } from "node:fs"
import type { DecidedBy, PermissionMode, PermissionRule } from "../../src/domain/permissions.js"
import type { AgentEvent } from "../../src/domain/events.js"
import type { ApprovalPolicy } from "../../src/layers/approvals/policy.js"
import type { CoreServices } from "../../src/app/agent.js"
import type { SessionEngine } from "../../src/core/SessionEngine.js"
import type { Fixture } from "./fixture.js"

/** A tool call the scripted model makes. Strings may hold `{ROOT}`, `{WS}`, `{OUT}`, `{HOME}`, `{CONFIG}`, `{DATA}`. */
export interface Call {
  readonly tool: string
  readonly input: Readonly<Record<string, unknown>>
}

/**
 * Whether an attack did its harm, judged on a fixture after the line ran (`output`: what the
 * command printed, when it was run directly). The control run checks it holds when bash runs
 * the line with nobody in the way, so a case cannot pass because its attack was a dud.
 */
export type Harm = (fx: Fixture, output: string) => boolean

/**
 * What must happen to every call of the case:
 * - `denied`: no `tool.started`, no allowing `permission.resolved` (by `by` when given), and
 *   nothing anywhere in the fixture changed, and no secret in the log;
 * - `contained`: the call ran (allowed by a rule or the policy), but the OS sandbox kept the
 *   outside, the home, the config and data directories and the workspace's protected folders
 *   unchanged;
 * - `allowed`: it ran, allowed by `by` (default `rule`), and `check` holds afterwards.
 */
export type Expectation =
  | { readonly kind: "denied"; readonly by?: ReadonlyArray<DecidedBy>; readonly harm?: Harm; readonly control?: boolean }
  | { readonly kind: "contained"; readonly harm?: Harm; readonly control?: boolean }
  | {
      readonly kind: "allowed"
      readonly by?: ReadonlyArray<DecidedBy>
      readonly check?: (fx: Fixture, events: ReadonlyArray<AgentEvent>) => void
    }

export interface SecurityCase {
  readonly name: string
  /** The user's rules (`config/permissions.json`). */
  readonly rules?: ReadonlyArray<PermissionRule>
  /** The project's rules (`ws/.custom-agent/permissions.json`); an empty list by default. */
  readonly projectRules?: ReadonlyArray<PermissionRule>
  /** Trust the project's rules file as it is before the turn (through the PermissionEngine). */
  readonly trustProject?: boolean
  readonly mode?: PermissionMode
  /** How questions are answered (default `deny`, like `--approve deny`). */
  readonly approve?: ApprovalPolicy
  /** Files, links, repositories the case needs. */
  readonly setup?: (fx: Fixture) => void
  /** Runs in the agent's services before the turn (e.g. remembered answers), with the turn's session. */
  readonly before?: (fx: Fixture, sessionId: string) => Effect.Effect<void, unknown, CoreServices | SessionEngine>
  readonly calls: ReadonlyArray<Call>
  readonly expect: Expectation
}

// Calls.
export const sh = (command: string): Call => ({ tool: "shell", input: { command } })
export const writeFile = (path: string, content = "pwned\n"): Call => ({ tool: "write_file", input: { path, content } })
export const editFile = (path: string, old_string: string, new_string: string): Call => ({ tool: "edit_file", input: { path, old_string, new_string } })
export const readFile = (path: string): Call => ({ tool: "read_file", input: { path } })

// Rules.
export const allowShell = (command: string, path?: string): PermissionRule => ({ tool: "shell", command, decision: "allow", ...(path === undefined ? {} : { path }) })
export const denyShell = (command: string): PermissionRule => ({ tool: "shell", command, decision: "deny" })
export const askShell = (command: string): PermissionRule => ({ tool: "shell", command, decision: "ask" })
export const allowPath = (tool: string, path: string): PermissionRule => ({ tool, path, decision: "allow" })
export const denyPath = (tool: string, path: string): PermissionRule => ({ tool, path, decision: "deny" })
/** The rule: `npm test`, exactly. */
export const npmTest = allowShell("npm test")

// Harms.
const at = (fx: Fixture, path: string) => {
  const filled = fx.fill(path)
  return filled.startsWith("/") ? filled : `${fx.ws}/${filled}`
}
/** The file exists afterwards. */
export const created = (path: string): Harm => (fx) => existsSync(at(fx, path))
/** The file is gone afterwards. */
export const removed = (path: string): Harm => (fx) => !existsSync(at(fx, path))
/** The file's content now includes `text`. */
export const contains = (path: string, text: string): Harm => (fx) => existsSync(at(fx, path)) && readFileSync(at(fx, path), "utf8").includes(fx.fill(text))
/** The command printed a secret from outside the workspace (or the workspace's `.env`). */
export const leaked: Harm = (fx, output) => output.includes(fx.outsideSecret) || output.includes(fx.envSecret)
/** Any of these. */
export const anyOf = (...harms: ReadonlyArray<Harm>): Harm => (fx, output) => harms.some((harm) => harm(fx, output))

/** The usual marker: a file created outside the workspace. */
export const PWNED = "{OUT}/pwned"
export const pwned = created(PWNED)

// Expectations.
export const denied = (harm?: Harm, by?: ReadonlyArray<DecidedBy>): Expectation => ({
  kind: "denied",
  ...(harm === undefined ? {} : { harm }),
  ...(by === undefined ? {} : { by })
})
/** Denied, and nothing about the line is harmful on its own: no control run. */
export const deniedNoControl = (by?: ReadonlyArray<DecidedBy>): Expectation => ({ kind: "denied", control: false, ...(by === undefined ? {} : { by }) })
export const deniedByRule = (harm?: Harm): Expectation => denied(harm, ["rule"])
export const contained = (harm?: Harm): Expectation => ({ kind: "contained", ...(harm === undefined ? {} : { harm }) })
export const allowed = (check?: (fx: Fixture, events: ReadonlyArray<AgentEvent>) => void, by: ReadonlyArray<DecidedBy> = ["rule"]): Expectation => ({
  kind: "allowed",
  by,
  ...(check === undefined ? {} : { check })
})
