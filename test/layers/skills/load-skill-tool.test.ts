import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as path from "node:path"
import { catalogue } from "../../../src/layers/skills/catalogue.js"
import * as SkillFolders from "../../../src/layers/skills/folders.js"
import { loadSkillTool, skillsToolSource } from "../../../src/layers/skills/load-skill-tool.js"
import { prepare, writeFiles } from "../tools/workspace-fixture.js"
import { skillMd, skillTree } from "./skill-fixture.js"

describe("load_skill", () => {
  it("offers a model-facing schema with one required name", () => {
    const tool = loadSkillTool(SkillFolders.make({ configDir: "/nonexistent" }))
    expect(tool.definition.name).toBe("load_skill")
    expect(tool.definition.inputSchema).toMatchObject({ type: "object", required: ["name"], properties: { name: { type: "string" } } })
  })

  it.scoped("prepares a read with no paths, and executes to the body under a header with the skill data", () =>
    Effect.gen(function* () {
      const { configDir, cwd } = yield* skillTree({}, { "skills/pdf/SKILL.md": skillMd("pdf", "work with PDFs", "Use forms.md for forms.") })
      const tool = loadSkillTool(SkillFolders.make({ configDir }))
      const call = yield* prepare(tool, { name: "pdf" }, cwd)
      expect(call).toMatchObject({ risk: "read", summary: "load skill pdf (user)", paths: [], outsideWorkspace: false })
      const result = yield* call.execute
      const file = path.join(configDir, "skills", "pdf", "SKILL.md")
      expect(result.isError).toBe(false)
      expect(result.output).toBe(
        [
          `Skill "pdf" (user skill, folder ${path.dirname(file)})`,
          `Paths this skill mentions are relative to ${path.dirname(file)}; read those files with read_file using the full path.`,
          "",
          "Use forms.md for forms."
        ].join("\n")
      )
      expect(result.data).toEqual({ _tag: "skill", name: "pdf", path: file })
    })
  )

  it.scoped("an unknown name is invalid input listing the skills; bad input is refused before any lookup", () =>
    Effect.gen(function* () {
      const { configDir, cwd } = yield* skillTree({ ".agents/skills/a/SKILL.md": skillMd("a", "the a skill") })
      const tool = loadSkillTool(SkillFolders.make({ configDir }))
      expect((yield* Effect.flip(prepare(tool, { name: "zz" }, cwd))).message).toBe('no skill named "zz"; known skills: a')
      expect((yield* Effect.flip(prepare(tool, { skill: "a" }, cwd))).message).toContain("name")
    })
  )

  it.scoped("a skill that became unloadable after prepare is an error result, not a failure", () =>
    Effect.gen(function* () {
      const { repo, configDir, cwd } = yield* skillTree({ ".agents/skills/a/SKILL.md": skillMd("a", "the a skill") })
      const call = yield* prepare(loadSkillTool(SkillFolders.make({ configDir })), { name: "a" }, cwd)
      yield* writeFiles(repo, { ".agents/skills/a/SKILL.md": "no front matter\n" })
      const result = yield* call.execute
      expect(result.isError).toBe(true)
      expect(result.output).toBe(
        `no skill named "a"; no skills are installed; skipped as unreadable or malformed: ${path.join(repo, ".agents/skills/a/SKILL.md")} (no front matter: ` +
          'SKILL.md must start with a "---" line, then "name:" and "description:", then a closing "---" line)'
      )
    })
  )

  it.effect("is offered by the skills tool source", () =>
    Effect.gen(function* () {
      const tools = yield* skillsToolSource(SkillFolders.make({ configDir: "/nonexistent" })).tools({ sessionId: "ses_1", workspaceRoot: "/" })
      expect(tools.map((t) => t.definition.name)).toEqual(["load_skill"])
    })
  )
})

describe("catalogue", () => {
  it("is empty without skills", () => {
    expect(catalogue([])).toBe("")
  })

  it("lists each skill on one line after a line saying how to load one", () => {
    expect(
      catalogue([
        { name: "deploy", description: "Ship a release." },
        { name: "review", description: "Review a diff." }
      ])
    ).toBe(
      [
        "Skills: specialised instructions for particular tasks. When a task matches a skill's description, call load_skill with its name and follow what it says.",
        "- deploy: Ship a release.",
        "- review: Review a diff."
      ].join("\n")
    )
  })
})
