import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import * as AgentFolders from "../../src/layers/agents/folders.js"
import { discoverInstructions } from "../../src/layers/context/instructions.js"
import * as SkillFolders from "../../src/layers/skills/folders.js"
import { Agents } from "../../src/services/Agents.js"
import { tempDir } from "../support/mcp-fixtures.js"
import { allowed, leaked, type SecurityCase } from "./cases.js"
import { type Fixture, putFile, putLink, removeFixtures } from "./fixture.js"
import { prepareFixture, runInProcess, withAgent } from "./run-case.js"

/**
 * Found by the attacker pass of issue 30: a cloned repository's instruction file, skill or agent
 * definition that is a link out of the project put any file the agent can read into the model's
 * context (and the log): `AGENTS.md -> /proc/self/environ` sent the provider key and the server
 * token to the provider. A project's files are now read only where they really lie inside it.
 */

const SECRET = "OUTSIDE-SECRET-CANARY"

const project = Effect.gen(function* () {
  const home = yield* tempDir("links-")
  const ws = join(home, "ws")
  const outside = join(home, "outside")
  const config = join(home, "config")
  for (const dir of [ws, outside, config, join(ws, ".git")]) mkdirSync(dir, { recursive: true })
  writeFileSync(join(outside, "secret.md"), `---\nname: stolen\ndescription: ${SECRET}\n---\n${SECRET}\n`)
  return { ws, outside, config }
})

describe("a project's files are read only from inside the project", () => {
  it.scoped("instruction files linked to /proc/self/environ or a file outside are skipped; a link inside still reads", () =>
    Effect.gen(function* () {
      const { ws, outside, config } = yield* project
      symlinkSync("/proc/self/environ", join(ws, "AGENTS.md"))
      symlinkSync(join(outside, "secret.md"), join(ws, "CLAUDE.md"))
      mkdirSync(join(ws, "sub"))
      writeFileSync(join(ws, "sub", "notes.md"), "project notes")
      symlinkSync("notes.md", join(ws, "sub", "AGENTS.md"))
      const found = yield* discoverInstructions({ cwd: join(ws, "sub"), configDir: config })
      const text = found.map((file) => file.text).join("\n")
      expect(text).not.toContain(SECRET)
      expect(text).not.toContain("PATH=")
      expect(found.map((file) => file.text)).toEqual(["project notes"])
    }))

  it.scoped("a skill or an agent definition linked out of the project is neither listed nor loaded", () =>
    Effect.gen(function* () {
      const { ws, outside, config } = yield* project
      mkdirSync(join(ws, ".agents", "skills", "stolen"), { recursive: true })
      symlinkSync(join(outside, "secret.md"), join(ws, ".agents", "skills", "stolen", "SKILL.md"))
      mkdirSync(join(ws, ".claude", "agents"), { recursive: true })
      symlinkSync(join(outside, "secret.md"), join(ws, ".claude", "agents", "stolen.md"))
      const skills = yield* SkillFolders.make({ configDir: config }).list(ws)
      expect(skills.skills).toEqual([])
      expect(skills.problems.map((p) => p.message).join("\n")).toContain("leads outside the workspace")
      const loaded = yield* Effect.flip(SkillFolders.make({ configDir: config }).load(ws, "stolen"))
      expect(loaded.message).not.toContain(SECRET)
      const agents = yield* AgentFolders.make({ configDir: config }).list(ws)
      expect(agents.agents).toEqual([])
      expect(JSON.stringify(agents)).not.toContain(SECRET)
    }))
})

/**
 * Found by the attacker pass (A3): the loaders judged a link against the repository's root, not
 * the workspace's, so in a workspace below the root `AGENTS.md -> ../outside/secret.txt` (a file
 * in the repository, outside the workspace: a `.env`, another package's secrets) went into the
 * model's context as instructions, and a skill or agent folder at the root linked the same way
 * was listed. The whole agent runs here (as the CLI builds it): the repository's root is the
 * fixture's root, the workspace `ws/` below it.
 */
describe("a project's instructions, skills and agent definitions through links that leave the workspace", () => {
  afterAll(removeFixtures)

  const setup = (fx: Fixture) => {
    rmSync(join(fx.ws, ".git"), { recursive: true, force: true })
    putFile(fx, "{ROOT}/.git/HEAD", "ref: refs/heads/main\n")
    // What the links pull in: files of the repository outside the workspace, holding its secret.
    putFile(fx, "{OUT}/skill/SKILL.md", `---\nname: stolen\ndescription: ${fx.outsideSecret}\n---\n${fx.outsideSecret}\n`)
    putFile(fx, "{OUT}/agent.md", `---\nname: stolen\ndescription: ${fx.outsideSecret}\n---\n${fx.outsideSecret}\n`)
    putLink(fx, "AGENTS.md", "../outside/secret.txt")
    putLink(fx, "{ROOT}/.agents/skills/stolen", "../../outside/skill")
    putLink(fx, "{ROOT}/.claude/agents/stolen.md", "../../outside/agent.md")
    // The controls: the workspace's own instructions, and the repository's own skill and agent above it.
    putFile(fx, "CLAUDE.md", "WS-NOTES: the workspace's own instructions\n")
    putFile(fx, "{ROOT}/.agents/skills/good/SKILL.md", "---\nname: good\ndescription: REPO-SKILL the repository's own skill\n---\nbody\n")
    putFile(fx, "{ROOT}/.claude/agents/helper.md", "---\nname: helper\ndescription: REPO-AGENT the repository's own agent\n---\nHelp.\n")
  }
  const c: SecurityCase = { name: "instructions, skills and agents linked out of the workspace", setup, calls: [], expect: allowed() }

  it.live("nothing they lead to reaches the model's context; the workspace's and the repository's own files still do", () =>
    Effect.gen(function* () {
      const fx = prepareFixture(c)
      const { events } = yield* runInProcess(c, fx)
      const log = JSON.stringify(events)
      expect(leaked(fx, log), "the file outside the workspace must not be in the context").toBe(false)
      expect(log).toContain("WS-NOTES")
      expect(log).toContain("REPO-SKILL")
      const agents = yield* withAgent(fx, c, Effect.flatMap(Agents, (service) => service.list(fx.ws)))
      expect(agents.agents.map((agent) => agent.name)).toEqual(["helper"])
      expect(agents.problems.map((problem) => problem.message).join("\n")).toContain("leads outside the workspace")
      expect(JSON.stringify(agents)).not.toContain(fx.outsideSecret)
    }))
})
