import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as SkillFolders from "../../../src/layers/skills/folders.js"
import { tempWorkspace, writeFiles } from "../tools/workspace-fixture.js"
import { skillMd, skillTree } from "./skill-fixture.js"

const byPath = <A extends { readonly path: string }>(items: ReadonlyArray<A>) => [...items].sort((a, b) => a.path.localeCompare(b.path))

describe("Skills from folders", () => {
  it.scoped("finds project (.agents, .claude) and user skills from a nested cwd; .agents beats .claude, the project beats the user", () =>
    Effect.gen(function* () {
      const { repo, configDir, cwd } = yield* skillTree(
        {
          ".agents/skills/alpha/SKILL.md": skillMd("alpha", "alpha from .agents"),
          ".claude/skills/alpha/SKILL.md": skillMd("alpha", "alpha from .claude"),
          ".claude/skills/beta/SKILL.md": skillMd("beta", "beta from the project"),
          ".claude/skills/notes.md": "not a skill folder\n",
          ".agents/skills/no-skill-here/README.md": "a folder without SKILL.md\n",
          "packages/app/shared/linked/SKILL.md": skillMd("linked", "reached through a symlinked folder")
        },
        {
          "skills/beta/SKILL.md": skillMd("beta", "beta from the user"),
          "skills/gamma/SKILL.md": skillMd("gamma", "gamma from the user")
        }
      )
      // A linked skill folder reads when it leads into the workspace (a link elsewhere: project-file-bounds.test.ts).
      yield* Effect.promise(() => fs.symlink(path.join(cwd, "shared", "linked"), path.join(repo, ".claude", "skills", "linked")))
      const { skills, problems } = yield* SkillFolders.make({ configDir }).list(cwd)
      expect(problems).toEqual([])
      expect(skills).toEqual([
        { name: "alpha", description: "alpha from .agents", path: path.join(repo, ".agents/skills/alpha/SKILL.md"), source: "project" },
        { name: "beta", description: "beta from the project", path: path.join(repo, ".claude/skills/beta/SKILL.md"), source: "project" },
        { name: "gamma", description: "gamma from the user", path: path.join(configDir, "skills/gamma/SKILL.md"), source: "user" },
        {
          name: "linked",
          description: "reached through a symlinked folder",
          path: path.join(repo, ".claude/skills/linked/SKILL.md"),
          source: "project"
        }
      ])
    })
  )

  it.scoped("without a repository the cwd is the project: skills above it are not found", () =>
    Effect.gen(function* () {
      const outer = yield* tempWorkspace
      yield* writeFiles(outer, {
        ".agents/skills/outer/SKILL.md": skillMd("outer", "above the cwd"),
        "inner/.agents/skills/inner/SKILL.md": skillMd("inner", "at the cwd")
      })
      const { skills } = yield* SkillFolders.make({ configDir: path.join(outer, "no-config") }).list(path.join(outer, "inner"))
      expect(skills.map((s) => s.name)).toEqual(["inner"])
    })
  )

  it.scoped("a malformed SKILL.md is reported with its path and skipped; the others still load", () =>
    Effect.gen(function* () {
      const { repo, configDir, cwd } = yield* skillTree({
        ".agents/skills/good/SKILL.md": skillMd("good", "works"),
        ".agents/skills/no-front-matter/SKILL.md": "# Just a title\n\nNo front matter.\n",
        ".agents/skills/no-description/SKILL.md": "---\nname: no-description\n---\nbody\n",
        ".agents/skills/bad-line/SKILL.md": "---\nname: bad-line\ndescription: d\nthis is not yaml\n---\nbody\n",
        ".agents/skills/bad-name/SKILL.md": skillMd("Bad Name", "capitals and a space"),
        ".agents/skills/z-duplicate/SKILL.md": skillMd("good", "the same name again"),
        ".agents/skills/is-a-directory/SKILL.md/file.txt": "SKILL.md is a folder here\n"
      })
      const at = (folder: string) => path.join(repo, ".agents/skills", folder, "SKILL.md")
      const { skills, problems } = yield* SkillFolders.make({ configDir }).list(cwd)
      expect(skills.map((s) => [s.name, s.description])).toEqual([["good", "works"]])
      expect(byPath(problems)).toEqual(
        byPath([
          { path: at("no-front-matter"), message: expect.stringContaining("no front matter") },
          { path: at("no-description"), message: '"description" is missing' },
          { path: at("bad-line"), message: 'line 4: expected "key: value", found "this is not yaml"' },
          { path: at("bad-name"), message: expect.stringContaining('"name" may only hold lowercase letters') },
          { path: at("z-duplicate"), message: `skill name "good" is already used by ${at("good")}; this one is ignored` },
          { path: at("is-a-directory"), message: `${at("is-a-directory")} is a directory, not a file` }
        ])
      )
      // The good one loads despite its broken neighbours.
      const loaded = yield* SkillFolders.make({ configDir }).load(cwd, "good")
      expect(loaded.body).toBe("Instructions of good.")
    })
  )

  it.scoped("listing reads only the front matter: a body too large to load still lists; an endless front matter is reported", () =>
    Effect.gen(function* () {
      const hugeBody = "x".repeat(SkillFolders.SKILL_MAX_BYTES)
      const endless = `---\nname: endless\n${"# padding\n".repeat(SkillFolders.HEADER_READ_BYTES / 10)}description: d\n---\nbody\n`
      const { repo, configDir, cwd } = yield* skillTree({
        ".agents/skills/big/SKILL.md": skillMd("big", "a body over the load limit", hugeBody),
        ".agents/skills/endless/SKILL.md": endless
      })
      const skills = SkillFolders.make({ configDir })
      const listed = yield* skills.list(cwd)
      expect(listed.skills).toEqual([
        { name: "big", description: "a body over the load limit", path: path.join(repo, ".agents/skills/big/SKILL.md"), source: "project" }
      ])
      expect(listed.problems).toEqual([
        {
          path: path.join(repo, ".agents/skills/endless/SKILL.md"),
          message: 'the front matter is not closed by a "---" line within the first 16.0 KiB'
        }
      ])
      const loaded = yield* Effect.flip(skills.load(cwd, "big"))
      expect(loaded._tag).toBe("SkillNotFound")
      expect(loaded.message).toContain("over the 1.0 MiB limit")
    })
  )

  it.scoped("load returns the body as it is on disk now, for project and user skills", () =>
    Effect.gen(function* () {
      const { repo, configDir, cwd } = yield* skillTree(
        { ".agents/skills/deploy/SKILL.md": skillMd("deploy", "ship it", "# Deploy\n\nRun `make release`; see reference.md.") },
        { "skills/review/SKILL.md": skillMd("review", "review code", "Read the diff.\n\n") }
      )
      const skills = SkillFolders.make({ configDir })
      const deploy = yield* skills.load(cwd, "deploy")
      expect(deploy).toEqual({
        skill: { name: "deploy", description: "ship it", path: path.join(repo, ".agents/skills/deploy/SKILL.md"), source: "project" },
        body: "# Deploy\n\nRun `make release`; see reference.md."
      })
      expect((yield* skills.load(cwd, "review")).body).toBe("Read the diff.")
      yield* writeFiles(repo, { ".agents/skills/deploy/SKILL.md": skillMd("deploy", "ship it", "Changed.") })
      expect((yield* skills.load(cwd, "deploy")).body).toBe("Changed.")
    })
  )

  it.scoped("an unknown name fails with SkillNotFound naming the known skills", () =>
    Effect.gen(function* () {
      const { configDir, cwd } = yield* skillTree({
        ".agents/skills/b/SKILL.md": skillMd("b", "second"),
        ".claude/skills/a/SKILL.md": skillMd("a", "first")
      })
      const missing = yield* Effect.either(SkillFolders.make({ configDir }).load(cwd, "c"))
      expect(missing).toEqual(Either.left(expect.objectContaining({ _tag: "SkillNotFound", name: "c", message: 'no skill named "c"; known skills: a, b' })))
      const none = yield* Effect.flip(SkillFolders.make({ configDir }).load(path.join(configDir, "elsewhere"), "c"))
      expect(none.message).toBe('no skill named "c"; no skills are installed')
    })
  )
})
