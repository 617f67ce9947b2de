import * as Effect from "effect/Effect"
import { chmodSync, closeSync, mkdirSync, openSync, type Stats, statSync } from "node:fs"
import { mkdir, rename, writeFile } from "node:fs/promises"
import { dirname } from "node:path"
import { messageOf } from "../domain/cause-message.js"
import { DataDirRefused } from "../domain/errors.js"

/**
 * Modes for what the agent keeps about a user: transcripts hold file contents and command
 * output, so the data directory is the user's alone. A mode only applies where we create
 * the file or folder (and the process umask may only narrow it further).
 */
export const PRIVATE_DIR_MODE = 0o700
export const PRIVATE_FILE_MODE = 0o600

/** Creates a folder (and missing parents) readable by the user only; an existing one keeps its mode. */
export const ensurePrivateDir = (dir: string): void => {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE })
}

/**
 * Why `dir` must not be used as the data directory, or undefined when it may (or is not there
 * yet). A folder another user owns, or one others can write (a shared folder under /tmp, a
 * group's `XDG_DATA_HOME`), may already hold what they put there: a socket that hears the kept
 * token, approvals, a trust file, a database. Such a folder is refused as it is, never
 * repaired: tightening it now would not remove what is already in it.
 */
export const dataDirRefusal = (dir: string): DataDirRefused | undefined => {
  const stat = statSync(dir, { throwIfNoEntry: false })
  return stat === undefined ? undefined : refusalOf(dir, stat)
}

const refusalOf = (dir: string, stat: Stats): DataDirRefused | undefined => {
  const elsewhere = "use a directory of your own (--data-dir, CUSTOM_AGENT_HOME or XDG_DATA_HOME)"
  const unsafe = "another user could have put files there (a socket, a token, approvals), so nothing is read from it or sent to it"
  if (!stat.isDirectory()) return new DataDirRefused({ dir, problem: "is not a directory", remedy: elsewhere })
  const uid = process.getuid?.()
  if (uid !== undefined && stat.uid !== uid) return new DataDirRefused({ dir, problem: `is owned by another user (uid ${stat.uid})`, remedy: `${unsafe}; ${elsewhere}` })
  if ((stat.mode & 0o022) !== 0) {
    const mode = (stat.mode & 0o7777).toString(8).padStart(4, "0")
    return new DataDirRefused({
      dir,
      problem: `can be written by other users (mode ${mode})`,
      remedy: `${unsafe}; check that it holds only your own files and run \`chmod 700 ${dir}\`, or ${elsewhere}`
    })
  }
  return undefined
}

/**
 * Every reader of the data directory (the store, the kept token, the host's socket, the
 * approvals and trust files) goes through this first: a refused folder is an error before
 * anything is read from it or sent to what it holds. A folder not there yet is fine (whoever
 * writes creates it private).
 */
export const checkDataDir = (dir: string): Effect.Effect<void, DataDirRefused> =>
  Effect.suspend(() => {
    try {
      const refused = dataDirRefusal(dir)
      return refused === undefined ? Effect.void : Effect.fail(refused)
    } catch (error) {
      return Effect.fail(new DataDirRefused({ dir, problem: `cannot be examined (${messageOf(error)})`, remedy: "use a directory of your own", cause: error }))
    }
  })

/**
 * The data directory: created private, and tightened to 0700 if an earlier version made it
 * readable by others, so everything under it is out of other users' reach. A folder that is
 * not the user's own, or that others can write, is refused (the DataDirRefused is thrown).
 */
export const claimPrivateDir = (dir: string): void => {
  ensurePrivateDir(dir)
  const stat = statSync(dir)
  const refused = refusalOf(dir, stat)
  if (refused !== undefined) throw refused
  if ((stat.mode & 0o7777) !== PRIVATE_DIR_MODE) chmodSync(dir, PRIVATE_DIR_MODE)
}

/** `claimPrivateDir` as an effect: a refusal as it is, another failure (a read-only disk) as a refusal saying why. */
export const claimDataDir = (dir: string): Effect.Effect<void, DataDirRefused> =>
  Effect.try({
    try: () => claimPrivateDir(dir),
    catch: (error) => (error instanceof DataDirRefused ? error : new DataDirRefused({ dir, problem: `cannot be made private (${messageOf(error)})`, remedy: "use a directory of your own", cause: error }))
  })

/** Creates an empty file 0600 unless it exists, so whatever opens it next finds it private. */
export const ensurePrivateFile = (file: string): void => {
  closeSync(openSync(file, "a", PRIVATE_FILE_MODE))
}

/**
 * Writes a whole file 0600 under a private folder: to a temporary name first, then renamed
 * over the old one, so a crash never leaves half a file (and the new file is private even if
 * the old one was not).
 */
export const writePrivateFile = async (file: string, text: string): Promise<void> => {
  await mkdir(dirname(file), { recursive: true, mode: PRIVATE_DIR_MODE })
  const temporary = `${file}.${process.pid}.tmp`
  await writeFile(temporary, text, { encoding: "utf8", mode: PRIVATE_FILE_MODE })
  await rename(temporary, file)
}
