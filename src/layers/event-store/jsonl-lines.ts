import type { FileHandle } from "node:fs/promises"
import { StringDecoder } from "node:string_decoder"

/** Bytes per read: replay and tail lookups never hold more than this (plus one long line). */
export const CHUNK_SIZE = 64 * 1024

const NEWLINE = 0x0a

/** Fills `buffer` from `position`; fails if the file ends first (it shrank under us). */
const readExactly = async (handle: FileHandle, buffer: Buffer, position: number) => {
  let filled = 0
  while (filled < buffer.length) {
    const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, position + filled)
    if (bytesRead === 0) throw new Error(`file ended at byte ${position + filled} while reading`)
    filled += bytesRead
  }
}

export interface LastLine {
  /** Bytes up to and including the last "\n": the part of the file made of complete lines. */
  readonly end: number
  /** Where the last complete line starts. */
  readonly start: number
  /** The last complete line without its "\n"; undefined when the file has no complete line. */
  readonly text: string | undefined
}

/**
 * Finds the last complete line by reading backwards from `size` in chunks, so a long log
 * costs one or two reads. Bytes after the last "\n" (a truncated line) are skipped, not kept.
 */
export const readLastLine = async (handle: FileHandle, size: number, chunkSize = CHUNK_SIZE): Promise<LastLine> => {
  // The last line's bytes, gathered back to front.
  const parts: Array<Buffer> = []
  let end = -1
  let position = size
  while (position > 0) {
    const from = Math.max(0, position - chunkSize)
    const buffer = Buffer.alloc(position - from)
    await readExactly(handle, buffer, from)
    let stop = buffer.length
    if (end < 0) {
      const newline = buffer.lastIndexOf(NEWLINE)
      if (newline < 0) {
        position = from
        continue
      }
      end = from + newline + 1
      stop = newline
    }
    const previous = stop === 0 ? -1 : buffer.lastIndexOf(NEWLINE, stop - 1)
    if (previous >= 0) {
      parts.unshift(buffer.subarray(previous + 1, stop))
      return { end, start: from + previous + 1, text: Buffer.concat(parts).toString("utf8") }
    }
    parts.unshift(buffer.subarray(0, stop))
    position = from
  }
  return end < 0 ? { end: 0, start: 0, text: undefined } : { end, start: 0, text: Buffer.concat(parts).toString("utf8") }
}

/** How many "\n" come before byte `limit`: the number of a line starting there, minus one. */
export const countLines = async (handle: FileHandle, limit: number, chunkSize = CHUNK_SIZE): Promise<number> => {
  const buffer = Buffer.alloc(chunkSize)
  let count = 0
  let position = 0
  while (position < limit) {
    const chunk = buffer.subarray(0, Math.min(chunkSize, limit - position))
    await readExactly(handle, chunk, position)
    for (let i = chunk.indexOf(NEWLINE); i >= 0; i = chunk.indexOf(NEWLINE, i + 1)) count++
    position += chunk.length
  }
  return count
}

export interface LineBatch {
  /** Complete lines, without their "\n". */
  readonly lines: ReadonlyArray<string>
  /** The 1-based number of `lines[0]`. */
  readonly firstLine: number
}

export interface LineReader {
  /** The lines completed by the next chunk (maybe none), or undefined once `limit` is reached. */
  readonly next: () => Promise<LineBatch | undefined>
  /** Call once at the end: what follows the last "\n" (a truncated line), "" if nothing. */
  readonly rest: () => string
  /** The number the line after the last complete one has. */
  readonly nextLine: () => number
}

/**
 * Reads lines from the start up to byte `limit` one chunk at a time. UTF-8 is decoded with a
 * streaming decoder, so a character split across two chunks comes out whole; a line longer
 * than a chunk is gathered in pieces and joined once.
 */
export const makeLineReader = (handle: FileHandle, limit: number, chunkSize = CHUNK_SIZE): LineReader => {
  const decoder = new StringDecoder("utf8")
  const buffer = Buffer.allocUnsafe(chunkSize)
  let position = 0
  let pending: Array<string> = []
  let nextLine = 1
  return {
    next: async () => {
      if (position >= limit) return undefined
      const { bytesRead } = await handle.read(buffer, 0, Math.min(chunkSize, limit - position), position)
      if (bytesRead === 0) return undefined
      position += bytesRead
      const text = decoder.write(buffer.subarray(0, bytesRead))
      const firstLine = nextLine
      let newline = text.indexOf("\n")
      if (newline < 0) {
        pending.push(text)
        return { lines: [], firstLine }
      }
      pending.push(text.slice(0, newline))
      const lines = [pending.join("")]
      pending = []
      let from = newline + 1
      for (newline = text.indexOf("\n", from); newline >= 0; newline = text.indexOf("\n", from)) {
        lines.push(text.slice(from, newline))
        from = newline + 1
      }
      if (from < text.length) pending.push(text.slice(from))
      nextLine += lines.length
      return { lines, firstLine }
    },
    rest: () => pending.join("") + decoder.end(),
    nextLine: () => nextLine
  }
}
