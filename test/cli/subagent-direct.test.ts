import { afterAll, describe, expect, it } from "@effect/vitest"
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { runCli } from "../support/cli.js"
import { makeTemp } from "../support/temp-dirs.js"

const temps = makeTemp()
afterAll(temps.cleanup)

const scriptFile = (dir: string, name: string, script: unknown) => {
  const file = join(dir, name)
  writeFileSync(file, JSON.stringify(script))
  return file
}

describe("run --session <a subagent's session>", () => {
  it("keeps the definition's tools (a write is refused), and with the definition deleted ends agent_unavailable, exit 1, saying what to do", { timeout: 60_000 }, async () => {
    const home = temps.dir("direct-home-")
    const project = temps.dir("direct-project-")
    const definition = join(project, ".agents", "agents", "reviewer.md")
    mkdirSync(join(project, ".agents", "agents"), { recursive: true })
    writeFileSync(definition, "---\nname: reviewer\ndescription: Reviews\ntools: read_file\n---\nYou review.\n")
    const env = { CUSTOM_AGENT_HOME: home, CUSTOM_AGENT_CONFIG_HOME: temps.dir("direct-config-") }
    const first = scriptFile(project, "first.json", {
      responses: [{ chunks: [{ toolCall: { name: "task", input: { agent: "reviewer", prompt: "review it" } } }] }, "Reviewed."],
      agents: { reviewer: { responses: ["Looks fine."] } }
    })
    expect((await runCli(["run", "--script", first, "get a review"], { env, cwd: project })).code).toBe(0)
    const list = await runCli(["sessions", "list"], { env, cwd: project })
    const childId = /└ (ses_\S+)/.exec(list.stdout)?.[1] ?? ""
    expect(childId).not.toBe("")

    const second = scriptFile(project, "second.json", {
      responses: ["never played: the child plays its agent's responses"],
      agents: { reviewer: { responses: [{ chunks: [{ toolCall: { name: "write_file", input: { path: "out.txt", content: "x" } } }] }, "I may only read."] } }
    })
    const direct = await runCli(["run", "--script", second, "--session", childId, "--mode", "bypass", "write out.txt"], { env, cwd: project })
    expect(direct.code).toBe(0)
    expect(direct.stdout + direct.stderr).toContain("not available to the reviewer subagent")
    expect(direct.stdout).toContain("I may only read.")
    expect(existsSync(join(project, "out.txt"))).toBe(false)

    rmSync(definition)
    const gone = await runCli(["run", "--script", second, "--session", childId, "write out.txt"], { env, cwd: project })
    expect(gone.code).toBe(1)
    const said = gone.stdout + gone.stderr
    expect(said).toContain("error (agent_unavailable)")
    expect(said).toContain('no agent named "reviewer" is defined')
    expect(said).toContain(`custom-agent sessions fork ${childId}`)
    expect(existsSync(join(project, "out.txt"))).toBe(false)
  })
})
