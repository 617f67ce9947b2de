import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { makeHub, tempDir } from "../../support/mcp-fixtures.js"

/** A stdio "server" that writes its environment to a file and exits: enough to see what it was given. */
const reporter = (dir: string) => {
  const script = join(dir, "report-env.cjs")
  writeFileSync(script, `require("node:fs").writeFileSync(process.argv[2], JSON.stringify(process.env))\n`)
  return script
}

const withVariables = <A, E, R>(variables: Record<string, string>, body: Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => Object.assign(process.env, variables)),
    () => body,
    () => Effect.sync(() => Object.keys(variables).forEach((name) => delete process.env[name]))
  )

describe("MCP: a stdio server's environment", () => {
  it.scopedLive("the allowlist, what the user's settings.json passes and its entry's env; none of our secrets", () =>
    Effect.gen(function* () {
      const userConfigDir = yield* tempDir("mcp-env-user-")
      const out = join(userConfigDir, "env.json")
      writeFileSync(join(userConfigDir, "settings.json"), JSON.stringify({ environment: { pass: ["MCP_ENV_TEST_PASSED"] } }))
      writeFileSync(
        join(userConfigDir, "mcp.json"),
        JSON.stringify({ mcpServers: { reporter: { command: process.execPath, args: [reporter(userConfigDir), out], env: { GIVEN: "${MCP_ENV_TEST_API_KEY}" } } } })
      )
      const hub = yield* makeHub({ userConfigDir })
      yield* withVariables(
        { MCP_ENV_TEST_PASSED: "passed", MCP_ENV_TEST_API_KEY: "sk-secret", MCP_ENV_TEST_OTHER: "other", CUSTOM_AGENT_TOKEN: "tok" },
        Effect.gen(function* () {
          yield* hub.configureSession("s", userConfigDir, [])
          yield* hub.status("s")
        })
      )
      const env: Record<string, unknown> = JSON.parse(readFileSync(out, "utf8"))
      expect(env["PATH"]).toBe(process.env["PATH"])
      expect(env["MCP_ENV_TEST_PASSED"]).toBe("passed")
      expect(env["GIVEN"]).toBe("sk-secret")
      expect(env["MCP_ENV_TEST_API_KEY"]).toBeUndefined()
      expect(env["MCP_ENV_TEST_OTHER"]).toBeUndefined()
      expect(env["CUSTOM_AGENT_TOKEN"]).toBeUndefined()
    }))
})
