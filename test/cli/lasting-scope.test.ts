import { afterAll, describe, expect, it } from "@effect/vitest"
import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { RememberedAnswer } from "../../src/domain/permissions.js"
import { runCli } from "../support/cli.js"
import { makeTemp } from "../support/temp-dirs.js"
import { runOnTerminal } from "../support/terminal.js"

const temps = makeTemp()
afterAll(temps.cleanup)

const write = (path: string) => ({ chunks: [{ toolCall: { name: "write_file", input: { path, content: "x\n" } } }] })

/**
 * `run` on a terminal asks how far a lasting answer reaches (the question's offers); what the
 * person picks is what the host stores, not the default. A later run inside the picked folder
 * is allowed by it; one outside still asks.
 */
describe("run: the scope picked for a lasting answer", () => {
  it("is stored as picked (src/**), and covers the next write under src/", { timeout: 90_000 }, async () => {
    const cwd = temps.dir("lasting-scope-")
    mkdirSync(join(cwd, "src", "deep"), { recursive: true })
    writeFileSync(join(cwd, "script.json"), JSON.stringify({ responses: [write("src/a.ts"), "wrote a"] }))
    // Each session plays its script from the start: the second run's has its own.
    writeFileSync(join(cwd, "script-b.json"), JSON.stringify({ responses: [write("src/deep/b.ts"), "wrote b"] }))
    const env = { CUSTOM_AGENT_HOME: temps.dir("lasting-scope-home-"), CUSTOM_AGENT_CONFIG_HOME: temps.dir("lasting-scope-config-") }
    const first = await runOnTerminal(cwd, ["run", "--script", "script.json", "write a"], "> ", ["a\r", "3\r"], env)
    expect(first.code, first.output).toBe(0)
    expect(first.output).toContain("remember which? [1] src/a.ts (as shown)  [2] src/*  [3] src/** (Enter: 1) > ")
    expect(existsSync(join(cwd, "src", "a.ts"))).toBe(true)

    const listed = await runCli(["permissions", "list", "--json"], { cwd, env })
    expect(listed.code, listed.stderr).toBe(0)
    const { answers }: { readonly answers: ReadonlyArray<RememberedAnswer> } = JSON.parse(listed.stdout)
    expect(answers.map((answer) => [answer.decision, answer.scope, answer.paths])).toEqual([["allow", "always", ["src/**"]]])

    // Nobody answers this one: a question would be denied without a terminal, so the write shows it was covered.
    const second = await runCli(["run", "--script", "script-b.json", "write b"], { cwd, env })
    expect(second.code, second.stderr).toBe(0)
    expect(existsSync(join(cwd, "src", "deep", "b.ts"))).toBe(true)
  })
})
