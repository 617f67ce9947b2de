import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type { AnswerCover } from "./permissions.js"

/**
 * What a person picked for a "session" or "always" answer: some of the path globs or command
 * prefixes the question offered (`lastingChoices`). Left out, the answer covers what the
 * question showed (`permission.requested`'s `lasting`).
 */
export const ChosenCover = Schema.Struct({
  paths: Schema.optional(Schema.Array(Schema.String).pipe(Schema.minItems(1), Schema.maxItems(64))),
  commands: Schema.optional(Schema.Array(Schema.String).pipe(Schema.minItems(1), Schema.maxItems(64)))
})
export type ChosenCover = typeof ChosenCover.Type

/** One choice a question offers for its lasting answer, in words and as the answer sends it. */
export interface LastingChoice {
  readonly label: string
  /** Undefined for the cover the question showed (what an answer without a choice stores). */
  readonly chosen: ChosenCover | undefined
}

const unique = (items: ReadonlyArray<string>): ReadonlyArray<string> => [...new Set(items)]

/**
 * The folder of a workspace-relative path as the cover names it (a literal glob: wildcard
 * characters are escaped, `/` never is), "" at the workspace's top; undefined for a path
 * outside the workspace (absolute), which is offered only as itself.
 */
const folderOf = (path: string): string | undefined => {
  if (path.startsWith("/")) return undefined
  const slash = path.lastIndexOf("/")
  return slash < 0 ? "" : path.slice(0, slash)
}

/** The files directly in each folder (`src/*`; `*` at the top). */
const filesIn = (paths: ReadonlyArray<string>): ReadonlyArray<string> =>
  unique(paths.flatMap((path) => {
    const folder = folderOf(path)
    return folder === undefined ? [] : [folder === "" ? "*" : `${folder}/*`]
  }))

/** Everything under each folder (`src/**`); never the whole workspace (`**`). */
const everythingUnder = (paths: ReadonlyArray<string>): ReadonlyArray<string> =>
  unique(paths.flatMap((path) => {
    const folder = folderOf(path)
    return folder === undefined || folder === "" ? [] : [`${folder}/**`]
  }))

/**
 * What a question offers for a lasting answer, widest last. Paths: the paths as shown, the
 * files in their folders, everything under their folders (never more than the folders the
 * question's own paths are in, never the whole workspace, and for a path outside the workspace
 * only that path). Commands and exact inputs: the cover as shown. The first choice is always
 * the cover shown, sent as no choice at all.
 */
export const lastingChoices = (cover: AnswerCover): ReadonlyArray<LastingChoice> => {
  const paths = cover.paths
  if (paths === undefined) return [{ label: "as shown", chosen: undefined }]
  const choices: Array<LastingChoice> = [{ label: `${paths.join(", ")} (as shown)`, chosen: undefined }]
  const named = new Set([paths.join(", ")])
  for (const patterns of [filesIn(paths), everythingUnder(paths)]) {
    const label = patterns.join(", ")
    if (patterns.length === 0 || named.has(label)) continue
    named.add(label)
    choices.push({ label, chosen: { paths: patterns } })
  }
  return choices
}

/** Every pattern some choice holds: what a chosen cover may name. */
const offeredPaths = (paths: ReadonlyArray<string>): ReadonlySet<string> => new Set([...paths, ...filesIn(paths), ...everythingUnder(paths)])

/**
 * The cover a lasting answer stores: the one shown, or the one chosen when every pattern it
 * names is among those the question offered (`lastingChoices`); else why it is refused. A
 * client, a hostile one included, can narrow what a person was shown, never widen it: `**`,
 * another folder, or a command prefix not shown is refused, not stored.
 */
export const chosenCover = (cover: AnswerCover, chosen: ChosenCover | undefined): Either.Either<AnswerCover, string> => {
  if (chosen === undefined || (chosen.paths === undefined && chosen.commands === undefined)) return Either.right(cover)
  if (chosen.paths !== undefined && chosen.commands !== undefined) return Either.left("a chosen cover names paths or commands, not both")
  if (chosen.paths !== undefined) {
    if (cover.paths === undefined) return Either.left("the question offered no paths to choose from")
    const offered = offeredPaths(cover.paths)
    const outside = chosen.paths.filter((path) => !offered.has(path))
    if (outside.length > 0) return Either.left(`${outside.join(", ")} ${outside.length === 1 ? "is" : "are"} not among the paths offered (${[...offered].join(", ")})`)
    return Either.right({ ...cover, paths: unique(chosen.paths) })
  }
  const commands = chosen.commands ?? []
  if (cover.commands === undefined) return Either.left("the question offered no commands to choose from")
  const shown = new Set(cover.commands)
  const outside = commands.filter((command) => !shown.has(command))
  if (outside.length > 0) return Either.left(`${outside.join(", ")} ${outside.length === 1 ? "is" : "are"} not among the commands offered (${cover.commands.join(", ")})`)
  return Either.right({ ...cover, commands: unique(commands) })
}
