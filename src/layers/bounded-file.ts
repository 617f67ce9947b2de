import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs"
import { messageOf } from "../domain/cause-message.js"
import { errnoCode } from "./tools/fs-errors.js"

/**
 * Reading a file the workspace may have planted (a settings file, rules, `.gitignore`) must
 * never hang or exhaust memory: a link to `/dev/zero` or a fifo would. So the file is opened
 * without blocking (opening a fifo then returns at once), judged by what was opened (fstat, so
 * no swap between a check and the open), refused unless it is a regular file, and read up to
 * a cap.
 */

/** Configuration files (settings, rules, MCP servers, hooks, trust, `.gitignore`): far above any real one. */
export const CONFIG_MAX_BYTES = 1024 * 1024

/** Why a bounded read gave no text; `missing` when nothing is at the path. */
export type BoundedReadProblem =
  | { readonly _tag: "missing" }
  | { readonly _tag: "refused"; readonly problem: string }

export type BoundedRead = { readonly _tag: "text"; readonly text: string } | BoundedReadProblem
export type BoundedBytes = { readonly _tag: "bytes"; readonly bytes: Buffer } | BoundedReadProblem

// O_NONBLOCK: a fifo opens without waiting for a writer; O_NOCTTY: a terminal never becomes ours.
const FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY

const isMissing = (error: unknown) => {
  const code = errnoCode(error)
  return code === "ENOENT" || code === "ENOTDIR"
}

const notRegular = (what: string) => ({ _tag: "refused" as const, problem: `is not a regular file (${what})` })
const tooLarge = (maxBytes: number) => ({ _tag: "refused" as const, problem: `is larger than ${maxBytes} bytes` })

const kindOf = (stat: { isDirectory(): boolean; isFIFO(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean; isSocket(): boolean }) =>
  stat.isDirectory() ? "a directory" : stat.isFIFO() ? "a fifo" : stat.isCharacterDevice() || stat.isBlockDevice() ? "a device" : stat.isSocket() ? "a socket" : "not a file"

/**
 * Synchronous: these files are small (the cap), and some are read on a turn's path, which must
 * not wait on a thread-pool trip for a file that is usually absent.
 */
export const readBoundedSync = (file: string, maxBytes: number = CONFIG_MAX_BYTES): BoundedRead => {
  const read = readBoundedBytesSync(file, maxBytes)
  return read._tag === "bytes" ? { _tag: "text", text: read.bytes.toString("utf8") } : read
}

/** As readBoundedSync, the bytes as they are (for a hash). */
export const readBoundedBytesSync = (file: string, maxBytes: number = CONFIG_MAX_BYTES): BoundedBytes => {
  let fd: number
  try {
    fd = openSync(file, FLAGS)
  } catch (error) {
    return isMissing(error) ? { _tag: "missing" } : { _tag: "refused", problem: `cannot be read (${messageOf(error)})` }
  }
  try {
    return readOpenedSync(fd, maxBytes)
  } finally {
    closeSync(fd)
  }
}

/**
 * Reads a file already opened (the caller closes it), judged by what was opened: refused unless
 * a regular file of at most `maxBytes` that `judge` (given its fstat) has no problem with.
 */
export const readOpenedSync = (fd: number, maxBytes: number, judge: (stat: Stats) => string | undefined = () => undefined): BoundedBytes => {
  try {
    const stat = fstatSync(fd)
    if (!stat.isFile()) return notRegular(kindOf(stat))
    const problem = judge(stat)
    if (problem !== undefined) return { _tag: "refused", problem }
    if (stat.size > maxBytes) return tooLarge(maxBytes)
    // One byte more than fstat said tells a file that grew since (a changing file is not read).
    const buffer = Buffer.alloc(stat.size + 1)
    let filled = 0
    while (filled < buffer.length) {
      const read = readSync(fd, buffer, filled, buffer.length - filled, null)
      if (read === 0) break
      filled += read
    }
    if (filled > stat.size) return { _tag: "refused", problem: "changed while it was read" }
    return { _tag: "bytes", bytes: buffer.subarray(0, filled) }
  } catch (error) {
    return { _tag: "refused", problem: `cannot be read (${messageOf(error)})` }
  }
}
