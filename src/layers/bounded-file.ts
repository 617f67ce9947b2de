import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs"
import { messageOf } from "../domain/cause-message.js"

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

// O_NONBLOCK: a fifo opens without waiting for a writer; O_NOCTTY: a terminal never becomes ours.
const FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY

const isMissing = (error: unknown) =>
  typeof error === "object" && error !== null && "code" in error && (error.code === "ENOENT" || error.code === "ENOTDIR")

const notRegular = (what: string) => ({ _tag: "refused" as const, problem: `is not a regular file (${what})` })
const tooLarge = (maxBytes: number) => ({ _tag: "refused" as const, problem: `is larger than ${maxBytes} bytes` })

const kindOf = (stat: { isDirectory(): boolean; isFIFO(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean; isSocket(): boolean }) =>
  stat.isDirectory() ? "a directory" : stat.isFIFO() ? "a fifo" : stat.isCharacterDevice() || stat.isBlockDevice() ? "a device" : stat.isSocket() ? "a socket" : "not a file"

/**
 * Synchronous: these files are small (the cap), and some are read on a turn's path, which must
 * not wait on a thread-pool trip for a file that is usually absent.
 */
export const readBoundedSync = (file: string, maxBytes: number = CONFIG_MAX_BYTES): BoundedRead => {
  let fd: number
  try {
    fd = openSync(file, FLAGS)
  } catch (error) {
    return isMissing(error) ? { _tag: "missing" } : { _tag: "refused", problem: `cannot be read (${messageOf(error)})` }
  }
  try {
    const stat = fstatSync(fd)
    if (!stat.isFile()) return notRegular(kindOf(stat))
    if (stat.size > maxBytes) return tooLarge(maxBytes)
    // One byte more than allowed tells a file that grew past the cap since the fstat.
    const buffer = Buffer.alloc(maxBytes + 1)
    let filled = 0
    while (filled < buffer.length) {
      const read = readSync(fd, buffer, filled, buffer.length - filled, null)
      if (read === 0) break
      filled += read
    }
    if (filled > maxBytes) return tooLarge(maxBytes)
    return { _tag: "text", text: buffer.subarray(0, filled).toString("utf8") }
  } catch (error) {
    return { _tag: "refused", problem: `cannot be read (${messageOf(error)})` }
  } finally {
    closeSync(fd)
  }
}
