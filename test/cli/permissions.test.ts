import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { Script } from "../../src/layers/model/scripted.js"
import * as Permissions from "../../src/layers/permission/engine.js"
import { PermissionEngine } from "../../src/services/PermissionEngine.js"
import { call, check } from "../layers/permission/fixture.js"
import { runCli } from "../support/cli.js"
import { parseEventLines } from "../support/events.js"
import { makeTemp } from "../support/temp-dirs.js"

const temps = makeTemp()
afterAll(temps.cleanup)

/** A workspace, the user's dirs, and a script whose model edits then writes `src/math.js`. */
const setup = () => {
  const root = temps.dir("cli-permissions-")
  const cwd = join(root, "work")
  mkdirSync(join(cwd, "src"), { recursive: true })
  writeFileSync(join(cwd, "src", "math.js"), "export const one = 1\n")
  const data = join(root, "data")
  const config = join(root, "config")
  mkdirSync(config, { recursive: true })
  const script = (calls: ReadonlyArray<{ readonly name: string; readonly input: unknown }>): string => {
    const file = join(root, `script-${calls.map((c) => c.name).join("-")}.json`)
    const value: Script = { responses: [{ chunks: calls.map((toolCall) => ({ toolCall })) }, "Done."] }
    writeFileSync(file, JSON.stringify(value))
    return file
  }
  return { cwd, data, script, env: { CUSTOM_AGENT_HOME: data, CUSTOM_AGENT_CONFIG_HOME: config } }
}

const write = { name: "write_file", input: { path: "src/math.js", content: "pwned\n" } }

const resolvedOf = (stdout: string) => parseEventLines(stdout).flatMap((e) => (e.type === "permission.resolved" ? [e.payload] : []))

describe("custom-agent permissions", () => {
  it("a deny always of an edit is listed with what it covers, denies the next write_file, and once revoked no longer holds", { timeout: 120_000 }, async () => {
    const { cwd, data, script, env } = setup()
    // allow-edits would allow any write here: only the remembered deny stands in the way.
    const run = (file: string) => runCli(["run", "go", "--script", file, "--json", "--sandbox", "off", "--approve", "allow-edits"], { cwd, env })

    // The person's "d" (deny always) to an edit_file question, remembered as the engine does after it.
    const stored = await Effect.runPromise(
      Effect.gen(function* () {
        const engine = yield* PermissionEngine
        const asked = check(cwd, "edit_file", call("write", { paths: [join(cwd, "src", "math.js")] }))
        return yield* engine.remember(asked, "deny", "always", Option.getOrThrow(yield* engine.lasting(asked)))
      }).pipe(Effect.provide(Permissions.layer({ approvalsFile: join(data, "approvals.json") })))
    )
    const id = stored.id

    const listed = await runCli(["permissions", "list"], { cwd, env })
    expect(listed.code).toBe(0)
    expect(listed.stdout).toContain(id)
    expect(listed.stdout).toContain("deny")
    expect(listed.stdout).toContain("changes to src/math.js (write_file, edit_file, a shell redirection into it)")
    const asJson = JSON.parse((await runCli(["permissions", "list", "--json", "--cwd", cwd], { cwd, env })).stdout)
    expect(asJson.answers).toEqual([expect.objectContaining({ id, decision: "deny", scope: "always", tool: "edit_file", paths: ["src/math.js"], access: "write" })])
    expect(JSON.parse((await runCli(["permissions", "list", "--json", "--cwd", data], { cwd, env })).stdout).answers).toEqual([])

    // A write to the same file, by another tool, is denied by the remembered answer.
    const denied = await run(script([write]))
    expect(resolvedOf(denied.stdout)).toEqual([expect.objectContaining({ decision: "deny", by: "remembered", rule: expect.objectContaining({ id }) })])
    expect(readFileSync(join(cwd, "src", "math.js"), "utf8")).toBe("export const one = 1\n")

    // Only the given id: an unknown one changes nothing.
    const unknown = await runCli(["permissions", "revoke", `${id}0`], { cwd, env })
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain(`no remembered answer has the id ${id}0`)
    const revoked = await runCli(["permissions", "revoke", id], { cwd, env })
    expect(revoked.code).toBe(0)
    expect(revoked.stdout).toContain(`revoked ${id}: deny changes to src/math.js`)
    expect((await runCli(["permissions", "list"], { cwd, env })).stdout).toBe("no remembered answers\n")
    const file = JSON.parse(readFileSync(join(data, "approvals.json"), "utf8"))
    expect(file.revoked).toEqual([expect.objectContaining({ by: "cli", answer: expect.objectContaining({ id }) })])

    // Revoked: asked again, and the policy allows it.
    const again = await run(script([write]))
    expect(resolvedOf(again.stdout)).toEqual([expect.objectContaining({ decision: "allow", by: "policy" })])
    expect(readFileSync(join(cwd, "src", "math.js"), "utf8")).toBe("pwned\n")
  })
})
