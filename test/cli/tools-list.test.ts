import { afterAll, describe, expect, it } from "@effect/vitest"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { runCli } from "../support/cli.js"
import { makeTemp } from "../support/temp-dirs.js"

const temps = makeTemp()
afterAll(temps.cleanup)

const BUILT_IN = ["read_file", "write_file", "edit_file", "list_files", "grep", "shell", "remember", "todo_write", "load_skill"]

const env = () => ({ CUSTOM_AGENT_HOME: temps.dir("tools-home-"), CUSTOM_AGENT_CONFIG_HOME: temps.dir("tools-config-") })

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value)

describe("custom-agent tools list", { timeout: 60_000 }, () => {
  it("each built-in tool: its name, its description and its input schema", async () => {
    const result = await runCli(["tools", "list"], { env: env(), cwd: temps.dir("tools-project-") })
    expect(result.code).toBe(0)
    const names = result.stdout.split("\n").filter((line) => /^\S/.test(line))
    expect(names).toEqual(BUILT_IN)
    expect(result.stdout).toContain("read_file\n  Read a text file.")
    expect(result.stdout).toMatch(/\n {2}input schema:\n {4}\{\n {6}"type": "object",\n {6}"required": \["path"\],\n/)
  })

  it("with agent definitions, the task tool too: its description lists each agent", async () => {
    const project = temps.dir("tools-project-")
    mkdirSync(join(project, ".agents", "agents"), { recursive: true })
    writeFileSync(join(project, ".agents", "agents", "reviewer.md"), "---\nname: reviewer\ndescription: Reviews code\n---\nYou review.\n")
    const result = await runCli(["tools", "list", "--json"], { env: env(), cwd: project })
    expect(result.code).toBe(0)
    const parsed: unknown = JSON.parse(result.stdout)
    if (!Array.isArray(parsed)) throw new Error("not an array")
    const task = parsed.filter(isRecord).find((tool) => tool["name"] === "task")
    expect(task?.["description"]).toContain("- reviewer: Reviews code")
    expect(task?.["inputSchema"]).toMatchObject({ required: ["agent", "prompt"] })
  })

  it("--mode plan: exit_plan_mode too, taking the plan and nothing else", async () => {
    const result = await runCli(["tools", "list", "--json", "--mode", "plan"], { env: env(), cwd: temps.dir("tools-project-") })
    expect(result.code).toBe(0)
    const parsed: unknown = JSON.parse(result.stdout)
    if (!Array.isArray(parsed)) throw new Error("not an array")
    const tools = parsed.filter(isRecord)
    expect(tools.map((tool) => tool["name"])).toEqual([...BUILT_IN, "exit_plan_mode"])
    expect(tools.at(-1)?.["inputSchema"]).toEqual({
      type: "object",
      properties: { plan: { type: "string", description: "The plan, in Markdown" } },
      required: ["plan"],
      additionalProperties: false
    })
  })

  it("--json: one array of { name, description, inputSchema }", async () => {
    const result = await runCli(["tools", "list", "--json"], { env: env(), cwd: temps.dir("tools-project-") })
    expect(result.code).toBe(0)
    const parsed: unknown = JSON.parse(result.stdout)
    if (!Array.isArray(parsed)) throw new Error("not an array")
    const tools = parsed.filter(isRecord)
    expect(tools.map((tool) => tool["name"])).toEqual(BUILT_IN)
    for (const tool of tools) {
      expect(Object.keys(tool)).toEqual(["name", "description", "inputSchema"])
      expect(typeof tool["description"]).toBe("string")
      expect(tool["inputSchema"]).toMatchObject({ type: "object" })
    }
  })
})
