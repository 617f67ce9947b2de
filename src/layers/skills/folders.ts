import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import type { Dirent } from "node:fs"
import * as path from "node:path"
import { type Skill, SkillNotFound, Skills, type SkillsShape } from "../../services/Skills.js"
import { projectRoot } from "../context/instructions-paths.js"
import { readTextPrefix } from "../context/instructions-read.js"
import type { ProjectFileBounds } from "../context/project-file-bounds.js"
import { currentHome, fixedPlaces, type PlacesNow, privatePlaces } from "../private-places.js"
import { collectDefinitions, type FoundDefinition, unreadableDefinition } from "../definition-folders.js"
import { formatBytes } from "../tools/format-bytes.js"
import { describeMissingSkill } from "./not-found.js"
import { parseSkillFile } from "./skill-header.js"

export interface SkillsOptions {
  /** The user's config directory (see `resolveConfigDir`); its skills are in `skills/`. */
  readonly configDir: string
  /**
   * Where a project's SKILL.md may never lead (private-places.ts). Default: the config directory
   * and the secret stores of this home; the agent passes its whole list.
   */
  readonly privatePlaces?: PlacesNow
}

/** Listing reads only this much of each SKILL.md: front matter is short, bodies may not be. */
export const HEADER_READ_BYTES = 16 * 1024
/** A SKILL.md larger than this is refused on load rather than flooding the context. */
export const SKILL_MAX_BYTES = 1024 * 1024

/** Where skills live, strongest first: `.agents` over `.claude`, the project over the user. */
const skillFolders = (
  cwd: string,
  configDir: string,
  places: PlacesNow
): Effect.Effect<ReadonlyArray<{ readonly folder: string; readonly source: Skill["source"]; readonly project?: ProjectFileBounds }>> =>
  Effect.zipWith(projectRoot(cwd), places, (root, current) => {
    // A project's skills are read only from inside the workspace, or as the repository holds them (a link out is refused).
    const project: ProjectFileBounds = { workspaceRoot: cwd, lookedIn: root, privatePlaces: current }
    return [
      { folder: path.join(root, ".agents", "skills"), source: "project", project },
      { folder: path.join(root, ".claude", "skills"), source: "project", project },
      { folder: path.join(path.resolve(configDir), "skills"), source: "user" }
    ]
  })

/** One sub-folder per skill, its SKILL.md inside. */
const skillFile = (entry: Dirent, folder: string) => (entry.isDirectory() || entry.isSymbolicLink() ? path.join(folder, entry.name, "SKILL.md") : undefined)

/** Reads one SKILL.md's front matter; none when the folder holds no SKILL.md (it is not a skill). */
const readSkill = (
  file: string,
  source: Skill["source"],
  folder: string,
  project: ProjectFileBounds | undefined
): Effect.Effect<ReadonlyArray<FoundDefinition<Skill>>> =>
  readTextPrefix(file, HEADER_READ_BYTES, project).pipe(
    Effect.map((read): ReadonlyArray<FoundDefinition<Skill>> =>
      Either.match(parseSkillFile(read.text, read.truncated ? HEADER_READ_BYTES : undefined), {
        onLeft: (message) => [{ _tag: "problem", problem: { path: file, message } }],
        onRight: ({ header }) => [{ _tag: "definition", folder, definition: { name: header.name, description: header.description, path: file, source } }]
      })
    ),
    Effect.catchAll(unreadableDefinition<Skill>(file))
  )

export const make = (options: SkillsOptions): SkillsShape => {
  const places = options.privatePlaces ?? fixedPlaces(privatePlaces({ home: currentHome(), configDir: options.configDir }))
  const list: SkillsShape["list"] = (cwd) =>
    Effect.gen(function* () {
      const { definitions, problems } = yield* collectDefinitions("skill", yield* skillFolders(cwd, options.configDir, places), skillFile, (file, at) =>
        readSkill(file, at.source, at.folder, at.project)
      )
      return { skills: definitions, problems }
    }).pipe(Effect.withSpan("Skills.list"))

  const load: SkillsShape["load"] = (cwd, name) =>
    Effect.gen(function* () {
      const listing = yield* list(cwd)
      const skill = listing.skills.find((s) => s.name === name)
      if (skill === undefined) return yield* new SkillNotFound({ name, message: describeMissingSkill(name, listing) })
      const unusable = (why: string) => new SkillNotFound({ name, message: `skill "${name}" (${skill.path}) cannot be loaded: ${why}` })
      const project: ProjectFileBounds | undefined =
        skill.source === "project" ? { workspaceRoot: cwd, lookedIn: yield* projectRoot(cwd), privatePlaces: yield* places } : undefined
      const read = yield* readTextPrefix(skill.path, SKILL_MAX_BYTES, project).pipe(Effect.mapError((error) => unusable(error.message)))
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
