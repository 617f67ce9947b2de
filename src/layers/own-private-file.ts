import { randomBytes } from "node:crypto"
import { closeSync, constants, fsyncSync, linkSync, openSync, renameSync, type Stats, unlinkSync, writeSync } from "node:fs"
import { messageOf } from "../domain/cause-message.js"
import { type BoundedRead, readOpenedSync } from "./bounded-file.js"
import { PRIVATE_FILE_MODE } from "./private-files.js"
import { errnoCode } from "./tools/fs-errors.js"

/**
 * A secret the agent keeps for the user in its data directory (the server's token): read only
 * when it is the user's own and nobody else's, written so that no reader ever sees half of it.
 *
 * Read: opened without following a link (a link planted at the path would point the agent at a
 * file someone else chose, or make it hand a file of theirs to a client), without blocking
 * (a fifo), and judged by what was opened: a regular file, owned by this user, with no group or
 * other permission bits, at most `maxBytes`. Anything else is refused with the reason, never
 * read and never repaired: a secret someone else could read may already be known.
 */

// O_NOFOLLOW: a link at the path fails to open (ELOOP) instead of being followed.
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY
// O_EXCL with O_CREAT: fails if anything (a file, a link, even a dangling one) is at the path.
const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW

const octal = (mode: number) => (mode & 0o777).toString(8).padStart(4, "0")

/** Why this file must not hold the user's secret, or undefined when it may. */
const ownershipProblem = (stat: Stats): string | undefined => {
  const uid = process.getuid?.()
  if (uid !== undefined && stat.uid !== uid) return `is owned by another user (uid ${stat.uid})`
  if ((stat.mode & 0o077) !== 0) return `can be read or changed by other users (mode ${octal(stat.mode)}; it must be 0600)`
  return undefined
}

export const readOwnPrivateFileSync = (file: string, maxBytes: number): BoundedRead => {
  let fd: number
  try {
    fd = openSync(file, READ_FLAGS)
  } catch (error) {
    const code = errnoCode(error)
    if (code === "ENOENT") return { _tag: "missing" }
    if (code === "ELOOP") return { _tag: "refused", problem: "is a symbolic link" }
    return { _tag: "refused", problem: `cannot be read (${messageOf(error)})` }
  }
  try {
    const read = readOpenedSync(fd, maxBytes, ownershipProblem)
    return read._tag === "bytes" ? { _tag: "text", text: read.bytes.toString("utf8") } : read
  } finally {
    closeSync(fd)
  }
}

/** Writes `text` whole to a new 0600 file beside `file`, created with O_EXCL; its name. */
const writeFresh = (file: string, text: string): string => {
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`
  const fd = openSync(temporary, CREATE_FLAGS, PRIVATE_FILE_MODE)
  try {
    writeSync(fd, text)
    fsyncSync(fd)
  } catch (error) {
    closeSync(fd)
    unlinkSync(temporary)
    throw error
  }
  closeSync(fd)
  return temporary
}

/**
 * Creates `file` holding `text` unless something is at the path already (then `false`, and
 * nothing changed). The text is written to a fresh file first and linked into place, which
 * fails if the path is taken: a reader finds no file or the whole text, never a part.
 */
export const createOwnPrivateFileSync = (file: string, text: string): boolean => {
  const temporary = writeFresh(file, text)
  try {
    linkSync(temporary, file)
    return true
  } catch (error) {
    if (errnoCode(error) === "EEXIST") return false
    throw error
  } finally {
    unlinkSync(temporary)
  }
}

/** Replaces `file` (a file or a link there alike: never written through) with a new 0600 file holding `text`, in one rename. */
export const replaceOwnPrivateFileSync = (file: string, text: string): void => {
  const temporary = writeFresh(file, text)
  try {
    renameSync(temporary, file)
  } catch (error) {
    unlinkSync(temporary)
    throw error
  }
}
