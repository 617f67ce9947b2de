import { closeSync, fstatSync, openSync, readSync } from "node:fs"
import { terminalString } from "../terminal-text.js"

/** What of the host's log an error shows: its end, where a failed start says why. */
const TAIL_BYTES = 4096

/** The last few KiB of `file`, made safe to print; a note when it cannot be read. */
export const readBoundedTail = (file: string): string => {
  let fd: number
  try {
    fd = openSync(file, "r")
  } catch (error) {
    return `(${file} cannot be read: ${String(error)})`
  }
  try {
    const size = fstatSync(fd).size
    const length = Math.min(size, TAIL_BYTES)
    const buffer = Buffer.alloc(length)
    const read = readSync(fd, buffer, 0, length, size - length)
    return terminalString(buffer.subarray(0, read).toString("utf8").trimEnd())
  } finally {
    closeSync(fd)
  }
}
