import type { Dirent } from "node:fs"
import * as fs from "node:fs/promises"
import * as Effect from "effect/Effect"
import { describeFsError, errnoCode } from "./tools/fs-errors.js"

/** A file that could not be listed, read or understood, and why; reported, never fatal. */
export interface DefinitionProblem {
  readonly path: string
  readonly message: string
}

/** What reading one definition file gave: the definition (from `folder`), a problem, or nothing (not a definition). */
export type FoundDefinition<D> =
  | { readonly _tag: "definition"; readonly definition: D; readonly folder: string }
  | { readonly _tag: "problem"; readonly problem: DefinitionProblem }

/** A definition file that could not be read: one gone since it was listed is nothing; any other failure is its problem. */
export const unreadableDefinition =
  <D>(file: string) =>
  (error: { readonly missing: boolean; readonly message: string }): Effect.Effect<ReadonlyArray<FoundDefinition<D>>> =>
    Effect.succeed(error.missing ? [] : [{ _tag: "problem", problem: { path: file, message: error.message } }])

/** The files of a folder that `pick` names (a path, or undefined for an entry that is none), in name order; a missing folder has none. */
export const definitionFiles = (
  folder: string,
  pick: (entry: Dirent) => string | undefined
): Effect.Effect<{ readonly files: ReadonlyArray<string>; readonly problems: ReadonlyArray<DefinitionProblem> }> =>
  Effect.promise(async () => {
    try {
      const entries = await fs.readdir(folder, { withFileTypes: true })
      const files = entries
        .filter((entry) => !entry.name.startsWith("."))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        .flatMap((entry) => pick(entry) ?? [])
      return { files, problems: [] }
    } catch (error) {
      const code = errnoCode(error)
      if (code === "ENOENT" || code === "ENOTDIR") return { files: [], problems: [] }
      return { files: [], problems: [{ path: folder, message: describeFsError("list", folder, error) }] }
    }
  })

/**
 * Reads the files of each folder (strongest first) and keeps one definition per name, sorted
 * by name: a stronger folder's shadows a weaker one's (how a project overrides a user's); two
 * of one name in the same folder is a mistake, reported.
 */
export const collectDefinitions = <D extends { readonly name: string; readonly path: string }, F extends { readonly folder: string }>(
  kind: string,
  folders: ReadonlyArray<F>,
  pick: (entry: Dirent, folder: string) => string | undefined,
  read: (file: string, at: F) => Effect.Effect<ReadonlyArray<FoundDefinition<D>>>
): Effect.Effect<{ readonly definitions: ReadonlyArray<D>; readonly problems: ReadonlyArray<DefinitionProblem> }> =>
  collectListed(kind, folders, (at) => definitionFiles(at.folder, (entry) => pick(entry, at.folder)), read)

/** `collectDefinitions` with the folders' files found by `list` (a walk into subfolders, say) rather than one folder's entries. */
export const collectListed = <D extends { readonly name: string; readonly path: string }, F extends { readonly folder: string }>(
  kind: string,
  folders: ReadonlyArray<F>,
  list: (at: F) => Effect.Effect<{ readonly files: ReadonlyArray<string>; readonly problems: ReadonlyArray<DefinitionProblem> }>,
  read: (file: string, at: F) => Effect.Effect<ReadonlyArray<FoundDefinition<D>>>
): Effect.Effect<{ readonly definitions: ReadonlyArray<D>; readonly problems: ReadonlyArray<DefinitionProblem> }> =>
  Effect.gen(function* () {
    const problems: Array<DefinitionProblem> = []
    const found: Array<FoundDefinition<D>> = []
    for (const at of folders) {
      const listed = yield* list(at)
      problems.push(...listed.problems)
      found.push(...(yield* Effect.forEach(listed.files, (file) => read(file, at), { concurrency: 8 })).flat())
    }
    const byName = new Map<string, { readonly definition: D; readonly folder: string }>()
    for (const item of found) {
      if (item._tag === "problem") {
        problems.push(item.problem)
        continue
      }
      const winner = byName.get(item.definition.name)
      if (winner === undefined) byName.set(item.definition.name, item)
      else if (winner.folder === item.folder) {
        problems.push({
          path: item.definition.path,
          message: `${kind} name "${item.definition.name}" is already used by ${winner.definition.path}; this one is ignored`
        })
      }
    }
    const definitions = [...byName.values()].map((entry) => entry.definition).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    return { definitions, problems }
  })
