import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import * as AgentFolders from "../../src/layers/agents/folders.js"
import { discoverInstructions } from "../../src/layers/context/instructions.js"
import * as SkillFolders from "../../src/layers/skills/folders.js"
import { tempDir } from "../support/mcp-fixtures.js"

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
      writeFileSync(join(ws, "notes.md"), "project notes")
      symlinkSync("../notes.md", join(ws, "sub", "AGENTS.md"))
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
      expect(skills.problems.map((p) => p.message).join("\n")).toContain("leads outside the project")
      const loaded = yield* Effect.flip(SkillFolders.make({ configDir: config }).load(ws, "stolen"))
      expect(loaded.message).not.toContain(SECRET)
      const agents = yield* AgentFolders.make({ configDir: config }).list(ws)
      expect(agents.agents).toEqual([])
      expect(JSON.stringify(agents)).not.toContain(SECRET)
    }))
})
