import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join, relative } from "node:path"
import { environmentPolicyOf, readUserEnvironmentPolicy } from "../../src/layers/subprocess-env-settings.js"
import { childEnvironment, FIXED_ONLY, passes } from "../../src/layers/subprocess-env.js"
import { makeTemp } from "../support/temp-dirs.js"

const temp = makeTemp()
afterAll(temp.cleanup)

const ours: NodeJS.ProcessEnv = {
  PATH: "/usr/bin:/bin",
  HOME: "/home/u",
  USER: "u",
  SHLVL: "1",
  LANG: "C.UTF-8",
  LC_ALL: "C",
  LC_CTYPE: "C",
  TZ: "UTC",
  TERM: "xterm",
  XDG_CONFIG_HOME: "/home/u/.config",
  XDG_RUNTIME_DIR: "/run/user/1000",
  JAVA_HOME: "/opt/java",
  VIRTUAL_ENV: "/home/u/venv",
  ANTHROPIC_API_KEY: "sk-ant",
  OPENAI_API_KEY: "sk-oa",
  CUSTOM_AGENT_TOKEN: "server-token",
  CUSTOM_AGENT_DATA_DIR: "/home/u/.data",
  AWS_SECRET_ACCESS_KEY: "aws",
  GITHUB_TOKEN: "ghp",
  MY_PRIVATE_THING: "private",
  SSH_AUTH_SOCK: "/tmp/ssh-agent.sock",
  DATABASE_PASSWORD: "pw",
  NPM_AUTH: "npm",
  SESSION_COOKIE: "c",
  XDG_SESSION_ID: "3",
  LD_PRELOAD: "/tmp/evil.so",
  NODE_OPTIONS: "--require /tmp/evil.js",
  BASH_ENV: "/tmp/evil.sh",
  MY_VAR: "mine",
  UNSET: undefined
}

describe("subprocess environment: the fixed allowlist", () => {
  it("passes the harmless names (locale, toolchain homes, XDG homes) and nothing else of ours", () => {
    expect(Object.keys(childEnvironment(FIXED_ONLY, {}, ours)).sort()).toEqual(
      ["HOME", "JAVA_HOME", "LANG", "LC_ALL", "LC_CTYPE", "PATH", "SHLVL", "TERM", "TZ", "USER", "VIRTUAL_ENV", "XDG_CONFIG_HOME", "XDG_RUNTIME_DIR"].sort()
    )
  })

  it("never passes provider keys, the server token, secret-looking names, loader hooks or unknown names", () => {
    for (const name of ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "CUSTOM_AGENT_TOKEN", "AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "MY_PRIVATE_THING", "SSH_AUTH_SOCK", "DATABASE_PASSWORD", "NPM_AUTH", "SESSION_COOKIE", "XDG_SESSION_ID", "LD_PRELOAD", "NODE_OPTIONS", "BASH_ENV", "MY_VAR"]) {
      expect(passes(name, FIXED_ONLY), name).toBe(false)
    }
  })

  it("the user's exact names pass, secret-looking ones too; a different spelling does not", () => {
    const policy = { pass: ["MY_VAR", "GITHUB_TOKEN"] }
    const env = childEnvironment(policy, {}, ours)
    expect(env["MY_VAR"]).toBe("mine")
    expect(env["GITHUB_TOKEN"]).toBe("ghp")
    expect(passes("github_token", policy)).toBe(false)
    expect(env["OPENAI_API_KEY"]).toBeUndefined()
  })

  it("our own variables never pass, even when the user names them", () => {
    const policy = { pass: ["CUSTOM_AGENT_TOKEN", "custom_agent_token", "CUSTOM_AGENT_DATA_DIR"] }
    const env = childEnvironment(policy, {}, { ...ours, custom_agent_token: "t" })
    expect(env["CUSTOM_AGENT_TOKEN"]).toBeUndefined()
    expect(env["custom_agent_token"]).toBeUndefined()
    expect(env["CUSTOM_AGENT_DATA_DIR"]).toBeUndefined()
  })

  it("what the caller sets for the child is taken as it is, over ours; the source is not changed", () => {
    const source = { ...ours }
    const env = childEnvironment(FIXED_ONLY, { CUSTOM_AGENT_PROJECT_DIR: "/ws", PATH: "/opt/bin", TRACEPARENT: "00-abc" }, source)
    expect(env["CUSTOM_AGENT_PROJECT_DIR"]).toBe("/ws")
    expect(env["PATH"]).toBe("/opt/bin")
    expect(env["TRACEPARENT"]).toBe("00-abc")
    expect(source).toEqual(ours)
    expect("UNSET" in env).toBe(false)
  })

  it("reads process.env when no source is given", () => {
    process.env["SUBPROCESS_ENV_TEST_API_KEY"] = "k"
    try {
      expect(childEnvironment(FIXED_ONLY)["SUBPROCESS_ENV_TEST_API_KEY"]).toBeUndefined()
      expect(childEnvironment({ pass: ["SUBPROCESS_ENV_TEST_API_KEY"] })["SUBPROCESS_ENV_TEST_API_KEY"]).toBe("k")
      expect(childEnvironment(FIXED_ONLY)["PATH"]).toBe(process.env["PATH"])
    } finally {
      delete process.env["SUBPROCESS_ENV_TEST_API_KEY"]
    }
  })
})

describe("subprocess environment: the user's settings", () => {
  it("`environment.pass` of a settings file; other keys are ignored", () => {
    expect(environmentPolicyOf({ environment: { pass: ["MY_VAR"] }, hooks: {}, sandbox: { network: true } })).toEqual(Either.right({ pass: ["MY_VAR"] }))
    expect(environmentPolicyOf({})).toEqual(Either.right({ pass: [] }))
    expect(environmentPolicyOf({ environment: {} })).toEqual(Either.right({ pass: [] }))
  })

  it("a malformed `environment` is a problem in words", () => {
    for (const bad of [{ environment: { pass: "MY_VAR" } }, { environment: { pass: ["MY VAR"] } }, { environment: { pass: [""] } }, { environment: [] }]) {
      expect(Either.isLeft(environmentPolicyOf(bad)), JSON.stringify(bad)).toBe(true)
    }
  })

  it.effect("read from the config dir's settings.json; missing or unusable, only the fixed allowlist", () =>
    Effect.gen(function* () {
      const missing = temp.dir("env-missing-")
      expect(yield* readUserEnvironmentPolicy(missing)).toEqual(FIXED_ONLY)
      const given = temp.dir("env-given-")
      writeFileSync(join(given, "settings.json"), JSON.stringify({ environment: { pass: ["MY_VAR", "GITHUB_TOKEN"] } }))
      expect(yield* readUserEnvironmentPolicy(given)).toEqual({ pass: ["MY_VAR", "GITHUB_TOKEN"] })
      const broken = temp.dir("env-broken-")
      writeFileSync(join(broken, "settings.json"), "{ not json")
      expect(yield* readUserEnvironmentPolicy(broken)).toEqual(FIXED_ONLY)
      const malformed = temp.dir("env-malformed-")
      writeFileSync(join(malformed, "settings.json"), JSON.stringify({ environment: { pass: [42] } }))
      expect(yield* readUserEnvironmentPolicy(malformed)).toEqual(FIXED_ONLY)
    }))
})

/** Every source file that can start a process; each builds the child's environment with `childEnvironment`. */
const SPAWNING = [
  // @effect/platform Command with `extendEnv: false` and an environment of its own (gitEnvironment).
  "src/layers/checkpoints/git.ts",
  // notify-send, with the fixed allowlist and the desktop's bus and display only.
  "src/layers/desktop-notifier.ts",
  "src/layers/sandbox/detect.ts",
  "src/layers/tools/mcp-connection.ts",
  "src/layers/tools/process-group.ts"
]

/**
 * Files that start the agent itself (the local host a client starts in the background): it is
 * the same program the person ran, so it gets that command's environment (its API keys, PATH),
 * as if typed in the same shell, and nothing else.
 */
const STARTING_ITSELF = ["src/layers/detached-process.ts"]

const sourceFiles = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : []
  )

describe("subprocess environment: every spawn goes through it", () => {
  it("the files that start processes are the known ones, and each builds its environment on purpose", () => {
    const root = join(import.meta.dirname, "..", "..")
    const starts = /node:child_process"|@effect\/platform\/Command"|new StdioTransport\(|new StdioClientTransport\(/
    const found = sourceFiles(join(root, "src"))
      .filter((file) => starts.test(readFileSync(file, "utf8").replace(/import type [^\n]*\n/g, "")))
      .map((file) => relative(root, file))
      .sort()
    // A new place that starts processes must give them childEnvironment(...) (src/layers/subprocess-env.ts), then be listed here.
    expect(found).toEqual([...SPAWNING, ...STARTING_ITSELF].sort())
    for (const file of STARTING_ITSELF) expect(readFileSync(join(root, file), "utf8"), file).toContain("env: process.env")
    for (const file of SPAWNING) {
      const text = readFileSync(join(root, file), "utf8")
      expect(/childEnvironment\(|ChildEnvironment\b|extendEnv: false/.test(text), file).toBe(true)
    }
  })
})
