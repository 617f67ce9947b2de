import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { type Skill, SkillNotFound, type SkillProblem, Skills, type SkillsShape } from "../../services/Skills.js"
import { projectRoot } from "../context/instructions-paths.js"
import { readTextPrefix } from "../context/instructions-read.js"
import { describeFsError, errnoCode } from "../tools/fs-errors.js"
import { formatBytes } from "../tools/format-bytes.js"
import { describeMissingSkill } from "./not-found.js"
import { parseSkillFile } from "./skill-header.js"

export interface SkillsOptions {
  /** The user's config directory (see `resolveConfigDir`); its skills are in `skills/`. */
  readonly configDir: string
}

/** Listing reads only this much of each SKILL.md: front matter is short, bodies may not be. */
export const HEADER_READ_BYTES = 16 * 1024
/** A SKILL.md larger than this is refused on load rather than flooding the context. */
export const SKILL_MAX_BYTES = 1024 * 1024

interface SkillFolder {
  readonly folder: string
  readonly source: Skill["source"]
}

/** Where skills live, strongest first: `.agents` over `.claude`, the project over the user. */
const skillFolders = (cwd: string, configDir: string): Effect.Effect<ReadonlyArray<SkillFolder>> =>
  Effect.map(projectRoot(cwd), (root) => [
    { folder: path.join(root, ".agents", "skills"), source: "project" },
    { folder: path.join(root, ".claude", "skills"), source: "project" },
    { folder: path.join(path.resolve(configDir), "skills"), source: "user" }
  ])

type Found =
  | { readonly _tag: "skill"; readonly skill: Skill; readonly folder: string }
  | { readonly _tag: "problem"; readonly problem: SkillProblem }

/** The SKILL.md files directly under a skills folder (one sub-folder per skill), in name order. */
const skillFiles = (folder: string): Effect.Effect<{ readonly files: ReadonlyArray<string>; readonly problems: ReadonlyArray<SkillProblem> }> =>
  Effect.promise(async () => {
    try {
      const entries = await fs.readdir(folder, { withFileTypes: true })
      const files = entries
        .filter((entry) => (entry.isDirectory() || entry.isSymbolicLink()) && !entry.name.startsWith("."))
        .map((entry) => entry.name)
        .sort()
        .map((name) => path.join(folder, name, "SKILL.md"))
      return { files, problems: [] }
    } catch (error) {
      const code = errnoCode(error)
      if (code === "ENOENT" || code === "ENOTDIR") return { files: [], problems: [] }
      return { files: [], problems: [{ path: folder, message: describeFsError("list", folder, error) }] }
    }
  })

/** Reads one SKILL.md's front matter; none when the folder holds no SKILL.md (it is not a skill). */
const readSkill = (file: string, source: Skill["source"], folder: string): Effect.Effect<ReadonlyArray<Found>> =>
  readTextPrefix(file, HEADER_READ_BYTES).pipe(
    Effect.map((read): ReadonlyArray<Found> =>
      Either.match(parseSkillFile(read.text, read.truncated ? HEADER_READ_BYTES : undefined), {
        onLeft: (message) => [{ _tag: "problem", problem: { path: file, message } }],
        onRight: ({ header }) => [{ _tag: "skill", folder, skill: { name: header.name, description: header.description, path: file, source } }]
      })
    ),
    Effect.catchAll((error) =>
      Effect.succeed<ReadonlyArray<Found>>(error.missing ? [] : [{ _tag: "problem", problem: { path: file, message: error.message } }])
    )
  )

export const make = (options: SkillsOptions): SkillsShape => {
  const list: SkillsShape["list"] = (cwd) =>
    Effect.gen(function* () {
      const problems: Array<SkillProblem> = []
      const found: Array<Found> = []
      for (const { folder, source } of yield* skillFolders(cwd, options.configDir)) {
        const listed = yield* skillFiles(folder)
        problems.push(...listed.problems)
        const read = yield* Effect.forEach(listed.files, (file) => readSkill(file, source, folder), { concurrency: 8 })
        found.push(...read.flat())
      }
      const byName = new Map<string, { readonly skill: Skill; readonly folder: string }>()
      for (const item of found) {
        if (item._tag === "problem") {
          problems.push(item.problem)
          continue
        }
        const winner = byName.get(item.skill.name)
        if (winner === undefined) {
          byName.set(item.skill.name, item)
        } else if (winner.folder === item.folder) {
          // Shadowing across folders is how a project overrides a user skill; within one folder it is a mistake.
          problems.push({
            path: item.skill.path,
            message: `skill name "${item.skill.name}" is already used by ${winner.skill.path}; this one is ignored`
          })
        }
      }
      const skills = [...byName.values()].map((entry) => entry.skill).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      return { skills, problems }
    }).pipe(Effect.withSpan("Skills.list"))

  const load: SkillsShape["load"] = (cwd, name) =>
    Effect.gen(function* () {
      const listing = yield* list(cwd)
      const skill = listing.skills.find((s) => s.name === name)
      if (skill === undefined) return yield* new SkillNotFound({ name, message: describeMissingSkill(name, listing) })
      const unusable = (why: string) => new SkillNotFound({ name, message: `skill "${name}" (${skill.path}) cannot be loaded: ${why}` })
      const read = yield* readTextPrefix(skill.path, SKILL_MAX_BYTES).pipe(Effect.mapError((error) => unusable(error.message)))
      if (read.truncated) return yield* unusable(`it is ${formatBytes(read.size)}, over the ${formatBytes(SKILL_MAX_BYTES)} limit`)
      // Checked again in full: the file may have changed since it was listed.
      const parsed = parseSkillFile(read.text)
      if (Either.isLeft(parsed)) return yield* unusable(parsed.left)
      if (parsed.right.header.name !== name) return yield* unusable(`it now names itself "${parsed.right.header.name}"`)
      return { skill, body: parsed.right.body }
    }).pipe(Effect.withSpan("Skills.load"))

  return { list, load }
}

export const layer = (options: SkillsOptions) => Layer.succeed(Skills, make(options))
