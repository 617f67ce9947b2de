import * as fs from "node:fs"
import { MovedError, openJudgedForRead } from "./judged-open.js"
import { looksBinaryBytes, SNIFF_BYTES } from "./text-sniff.js"
import type { WalkedFile } from "./workspace-walk.js"

/** What a search made of one walked file: its text, or why it was not searched. */
export type Searchable =
  | { readonly kind: "text"; readonly text: string }
  | { readonly kind: "binary" | "too-large" | "unreadable" | "moved" }

/** Files up to this size are read without a thread-pool trip: microseconds each, against a millisecond. */
const SYNC_READ_MAX_BYTES = 256 * 1024

/**
 * The file's text, read from the very file the walk met (`file.real`, checked on the open
 * descriptor): a name swapped for a link since (to `~/.ssh/id_rsa`) is `moved`, never read.
 * Opened without blocking and judged by what was opened, so a fifo is not waited on. A file
 * that cannot be read is counted by the caller, not fatal.
 */
export const readSearchable = async (file: WalkedFile, maxBytes: number, signal: AbortSignal): Promise<Searchable> => {
  let fd: number
  try {
    fd = openJudgedForRead(file.absolute, file.real)
  } catch (error) {
    return { kind: error instanceof MovedError ? "moved" : "unreadable" }
  }
  try {
    const stat = fs.fstatSync(fd)
    if (!stat.isFile()) return { kind: "unreadable" }
    if (stat.size > maxBytes) return { kind: "too-large" }
    const bytes = stat.size <= SYNC_READ_MAX_BYTES ? readSync(fd, stat.size) : await readAsync(fd, stat.size)
    if (looksBinaryBytes(bytes.subarray(0, SNIFF_BYTES))) return { kind: "binary" }
    return { kind: "text", text: bytes.toString("utf8") }
  } catch {
    signal.throwIfAborted()
    return { kind: "unreadable" }
  } finally {
    fs.closeSync(fd)
  }
}

/** At most `size` bytes (the size when opened): a file growing meanwhile is searched as it was. */
const readSync = (fd: number, size: number): Buffer => {
  const buffer = Buffer.alloc(size)
  let filled = 0
  while (filled < size) {
    const read = fs.readSync(fd, buffer, filled, size - filled, filled)
    if (read === 0) break
    filled += read
  }
  return buffer.subarray(0, filled)
}

const readAsync = (fd: number, size: number): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const buffer = Buffer.alloc(size)
    const step = (filled: number): void => {
      fs.read(fd, buffer, filled, size - filled, filled, (error, read) => {
        if (error !== null) reject(error)
        else if (read === 0 || filled + read === size) resolve(buffer.subarray(0, filled + read))
        else step(filled + read)
      })
    }
    if (size === 0) resolve(buffer)
    else step(0)
  })
