import * as Effect from "effect/Effect"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import type { DefinitionProblem } from "../definition-folders.js"
import { describeFsError, errnoCode } from "../tools/fs-errors.js"

/** How many folders below a commands folder are read (`commands/a/b/c/d/e/x.md` is the deepest). */
export const COMMAND_FOLDER_DEPTH = 5
/** At most this many command files are read from one commands folder: listing reads each one. */
export const COMMAND_FILES_MAX = 500

const byName = (a: { readonly name: string }, b: { readonly name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)

/** What listing a folder failed with; a folder that is not there holds nothing. */
const listingProblem = (folder: string, error: unknown): ReadonlyArray<DefinitionProblem> => {
  const code = errnoCode(error)
  return code === "ENOENT" || code === "ENOTDIR" ? [] : [{ path: folder, message: describeFsError("list", folder, error) }]
}

/** Whether `entry` (a link) leads to a folder; anything that cannot be looked at is not one. */
const leadsToFolder = async (entry: string): Promise<boolean> => {
  try {
    return (await fs.stat(entry)).isDirectory()
  } catch {
    // A dangling or unreadable link is no folder; as it is not a `.md` file, it is nothing at all.
    return false
  }
}

/**
 * The `*.md` files under `folder` (its subfolders are namespaces), a folder's own before its
 * subfolders' (breadth first), each folder's entries in name order. Hidden entries are skipped;
 * a link to a folder is not followed, and a folder deeper than `COMMAND_FOLDER_DEPTH` is not
 * read (each said as a problem); past `COMMAND_FILES_MAX` files the rest are not read either.
 * A `.md` link is listed: whoever reads it judges where it leads.
 */
export const commandFiles = (folder: string): Effect.Effect<{ readonly files: ReadonlyArray<string>; readonly problems: ReadonlyArray<DefinitionProblem> }> =>
  Effect.promise(async () => {
    const files: Array<string> = []
    const problems: Array<DefinitionProblem> = []
    let level: ReadonlyArray<string> = [folder]
    for (let depth = 0; level.length > 0; depth++) {
      const next: Array<string> = []
      for (const dir of level) {
        let entries
        try {
          entries = (await fs.readdir(dir, { withFileTypes: true })).filter((entry) => !entry.name.startsWith(".")).sort(byName)
        } catch (error) {
          problems.push(...listingProblem(dir, error))
          continue
        }
        for (const entry of entries) {
          const full = path.join(dir, entry.name)
          if (entry.name.endsWith(".md") && (entry.isFile() || entry.isSymbolicLink())) {
            if (files.length >= COMMAND_FILES_MAX) {
              problems.push({ path: folder, message: `it holds more than ${COMMAND_FILES_MAX} command files; the rest are not read` })
              return { files, problems }
            }
            files.push(full)
          } else if (entry.isDirectory()) {
            if (depth + 1 > COMMAND_FOLDER_DEPTH) problems.push({ path: full, message: `it lies more than ${COMMAND_FOLDER_DEPTH} folders down; its commands are not read` })
            else next.push(full)
          } else if (entry.isSymbolicLink() && (await leadsToFolder(full))) {
            problems.push({ path: full, message: "it is a link to a folder, which is not followed; put the commands in a folder here" })
          }
        }
      }
      level = next
    }
    return { files, problems }
  })
