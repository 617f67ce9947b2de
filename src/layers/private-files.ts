import { chmodSync, closeSync, mkdirSync, openSync, statSync } from "node:fs"
import { mkdir, rename, writeFile } from "node:fs/promises"
import { dirname } from "node:path"

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
 * The data directory: created private, and tightened to 0700 if an earlier version made it
 * looser, so everything under it is out of other users' reach. Only a folder that is ours is
 * changed: one this user owns that is not a shared folder (sticky, like /tmp), so a
 * `--data-dir` pointed somewhere odd cannot lock others out of it.
 */
export const claimPrivateDir = (dir: string): void => {
  ensurePrivateDir(dir)
  const { mode, uid } = statSync(dir)
  const ours = uid === process.getuid?.() && (mode & 0o1000) === 0
  if (ours && (mode & 0o777) !== PRIVATE_DIR_MODE) chmodSync(dir, PRIVATE_DIR_MODE)
}

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
