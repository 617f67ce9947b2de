import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as path from "node:path"
import { parseAgentFile } from "../../../src/layers/agents/agent-file.js"
import * as AgentFolders from "../../../src/layers/agents/folders.js"
import { skillTree } from "../skills/skill-fixture.js"

const agentMd = (front: string, body = "You review code. Answer with findings only.") => `---\n${front}\n---\n${body}\n`

describe("agent definitions from folders", () => {
  it.scoped("finds project (.agents, .claude) and user agents; .agents beats .claude, the project beats the user; Claude Code's tool names become ours", () =>
    Effect.gen(function* () {
      const { repo, configDir, cwd } = yield* skillTree(
        {
          ".agents/agents/reviewer.md": agentMd("name: reviewer\ndescription: Reviews a change\ntools: read_file, grep\nmaxSteps: 8"),
          ".claude/agents/reviewer.md": agentMd("name: reviewer\ndescription: shadowed by .agents"),
          ".claude/agents/explorer.md": agentMd("name: explorer\ndescription: Finds things\ntools: Read, Grep, Glob, Read\nmodel: inherit"),
          ".claude/agents/notes.txt": "not an agent\n"
        },
        {
          "agents/explorer.md": agentMd("name: explorer\ndescription: the user's, shadowed"),
          "agents/writer.md": agentMd("name: writer\ndescription: Writes docs\nmodel: claude-sonnet-4-5", "You write documentation.")
        }
      )
      const { agents, problems } = yield* AgentFolders.make({ configDir }).list(cwd)
      expect(problems).toEqual([])
      expect(agents).toEqual([
        {
          name: "explorer",
          description: "Finds things",
          tools: ["read_file", "grep", "list_files"],
          instructions: "You review code. Answer with findings only.",
          path: path.join(repo, ".claude/agents/explorer.md"),
          source: "project"
        },
        {
          name: "reviewer",
          description: "Reviews a change",
          tools: ["read_file", "grep"],
          maxSteps: 8,
          instructions: "You review code. Answer with findings only.",
          path: path.join(repo, ".agents/agents/reviewer.md"),
          source: "project"
        },
        {
          name: "writer",
          description: "Writes docs",
          model: "anthropic/claude-sonnet-4-5",
          instructions: "You write documentation.",
          path: path.join(configDir, "agents/writer.md"),
          source: "user"
        }
      ])
    })
  )

  it.scoped("malformed files are reported with what is wrong, never fatal; the good ones are still listed", () =>
    Effect.gen(function* () {
      const { repo, configDir, cwd } = yield* skillTree({
        ".agents/agents/a-good.md": agentMd("name: good\ndescription: Fine"),
        ".agents/agents/b-no-front.md": "just text\n",
        ".agents/agents/c-bad-name.md": agentMd("name: Bad Name\ndescription: x"),
        ".agents/agents/d-map.md": agentMd("name: mapped\ndescription: x\ntools:\n  read_file: yes"),
        ".agents/agents/e-steps.md": agentMd("name: steps\ndescription: x\nmaxSteps: many"),
        ".agents/agents/f-empty.md": agentMd("name: empty\ndescription: x", ""),
        ".agents/agents/g-twin.md": agentMd("name: good\ndescription: the same name in the same folder"),
        ".agents/agents/h-no-description.md": agentMd("name: nodesc")
      })
      const { agents, problems } = yield* AgentFolders.make({ configDir }).list(cwd)
      expect(agents.map((agent) => agent.name)).toEqual(["good"])
      const at = (file: string) => problems.find((problem) => problem.path === path.join(repo, ".agents/agents", file))?.message
      expect(at("b-no-front.md")).toMatch(/no front matter/)
      expect(at("c-bad-name.md")).toMatch(/"name" may only hold lowercase letters/)
      expect(at("d-map.md")).toBe('"tools" must be tool names: on one line separated by commas, or a YAML list of names')
      expect(at("e-steps.md")).toMatch(/"maxSteps" must be a whole number/)
      expect(at("f-empty.md")).toMatch(/the body is empty/)
      expect(at("g-twin.md")).toMatch(/agent name "good" is already used by .*a-good\.md; this one is ignored/)
      expect(at("h-no-description.md")).toMatch(/"description" is missing/)
      expect(problems).toHaveLength(7)
    })
  )

  it.scoped("get finds an agent by name, and names the known ones when it does not", () =>
    Effect.gen(function* () {
      const { configDir, cwd } = yield* skillTree({ ".agents/agents/reviewer.md": agentMd("name: reviewer\ndescription: Reviews") })
      const agents = AgentFolders.make({ configDir })
      expect((yield* agents.get(cwd, "reviewer")).description).toBe("Reviews")
      const missing = yield* Effect.either(agents.get(cwd, "writer"))
      expect(Either.isLeft(missing) && missing.left.message).toBe('no agent named "writer"; the agents are: reviewer')
    })
  )

  it("tools may be a YAML list, flow or block, as Claude Code's community definitions write them", () => {
    const tools = (header: string) => Either.getOrThrow(parseAgentFile(agentMd(`name: a\ndescription: b\n${header}`))).tools
    expect(tools("tools: [read_file]")).toEqual(["read_file"])
    expect(tools("tools: [Read, Grep, read_file]")).toEqual(["read_file", "grep"])
    expect(tools("tools:\n  - Read\n  - Glob")).toEqual(["read_file", "list_files"])
    expect(tools("tools:\n- Read")).toEqual(["read_file"])
    expect(tools("tools: []")).toEqual([])
  })

  it.scoped("get names the definitions that cannot be used, the one named like the agent first", () =>
    Effect.gen(function* () {
      const { repo, configDir, cwd } = yield* skillTree({
        ".agents/agents/a-other.md": "just text\n",
        ".agents/agents/reviewer.md": agentMd("name: reviewer\ndescription: Reviews\ntools: [read_file")
      })
      const missing = yield* Effect.either(AgentFolders.make({ configDir }).get(cwd, "reviewer"))
      expect(Either.isLeft(missing) && missing.left.message).toBe(
        `no agent named "reviewer"; no agent definition can be used; these definitions cannot be used: ${path.join(repo, ".agents/agents/reviewer.md")}: line 4: the list is not closed by "]"; ${path.join(repo, ".agents/agents/a-other.md")}: no front matter: an agent file starts with a "---" line, then "name:" and "description:", then a closing "---" line`
      )
    })
  )

  it("maxSteps must be between 1 and 1000, and an empty tools line means none", () => {
    const zero = parseAgentFile(agentMd("name: a\ndescription: b\nmaxSteps: 0"))
    expect(Either.isLeft(zero) && zero.left).toBe('"maxSteps" must be between 1 and 1000')
    expect(Either.getOrThrow(parseAgentFile(agentMd("name: a\ndescription: b\ntools: ''"))).tools).toEqual([])
  })

  it("a model is named the way its gateway reports it: Claude Code's aliases and ids, our specs; inherit or nothing is the parent's", () => {
    const model = (value: string) => Either.getOrThrow(parseAgentFile(agentMd(`name: a\ndescription: b\nmodel: ${value}`))).model
    expect(model("haiku")).toBe("anthropic/claude-haiku-5-5")
    expect(model("sonnet")).toBe("anthropic/claude-sonnet-5-5")
    expect(model("opus")).toBe("anthropic/claude-opus-5-5")
    expect(model("claude-opus-4-6")).toBe("anthropic/claude-opus-4-6")
    expect(model("anthropic")).toBe("anthropic/claude-sonnet-5-5")
    expect(model("openai/qwen3:8b")).toBe("openai/qwen3:8b")
    expect(model("scripted")).toBe("scripted")
    expect(model("inherit")).toBeUndefined()
    expect(Either.getOrThrow(parseAgentFile(agentMd("name: a\ndescription: b"))).model).toBeUndefined()
  })

  it("a model that names nothing we can ask makes the file malformed, with what may be written", () => {
    for (const value of ["gpt-4.1", "gemini/pro", "openai"]) {
      const parsed = parseAgentFile(agentMd(`name: a\ndescription: b\nmodel: ${value}`))
      expect(Either.isLeft(parsed) && parsed.left).toBe(
        `"model" must be inherit, sonnet, opus, haiku, a Claude model id (claude-…) or a --model spec (anthropic/<id>, openai/<id>, openai-compatible/<id>, scripted), not "${value}"`
      )
    }
  })
})
