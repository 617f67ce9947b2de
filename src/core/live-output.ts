import type { PayloadOf } from "../domain/events.js"

/** How much of a running call's output its `tool.output` events may hold. */
export interface LiveOutputLimits {
  /** The first bytes of the output, recorded whole. */
  readonly wholeBytes: number
  /** Past them, each record keeps only the last this many bytes of what came since the one before (from a line's start when it can). */
  readonly tailBytes: number
  /** Bytes recorded for one call in all: the record after which no other would fit is the call's last (`capped`). */
  readonly maxBytes: number
}

/** A call's output kept whole up to 64 KiB, then tails of at most 1 KiB, at most 128 KiB in all. */
export const LIVE_OUTPUT_LIMITS: LiveOutputLimits = { wholeBytes: 64 * 1024, tailBytes: 1024, maxBytes: 128 * 1024 }

export type LiveOutputRecord = Omit<PayloadOf<"tool.output">, "toolCallId">

const isHigh = (code: number) => code >= 0xd800 && code <= 0xdbff
const isLow = (code: number) => code >= 0xdc00 && code <= 0xdfff

/** The UTF-8 size of the character at `i` and how many UTF-16 units it takes (2 for a surrogate pair). */
const charAt = (text: string, i: number): readonly [bytes: number, units: number] => {
  const code = text.charCodeAt(i)
  if (code < 0x80) return [1, 1]
  if (code < 0x800) return [2, 1]
  if (isHigh(code) && i + 1 < text.length && isLow(text.charCodeAt(i + 1))) return [4, 2]
  // A lone surrogate is written as the replacement character.
  return [3, 1]
}

/** UTF-8 bytes of a string. */
export const utf8Bytes = (text: string): number => {
  let bytes = 0
  for (let i = 0; i < text.length; ) {
    const [size, units] = charAt(text, i)
    bytes += size
    i += units
  }
  return bytes
}

/** The longest start of `text` within `bytes`, never splitting a character. */
const headWithin = (text: string, bytes: number): string => {
  let used = 0
  let i = 0
  while (i < text.length) {
    const [size, units] = charAt(text, i)
    if (used + size > bytes) break
    used += size
    i += units
  }
  return text.slice(0, i)
}

/** The longest end of `text` within `bytes`, never splitting a character. */
const tailWithin = (text: string, bytes: number): string => {
  let used = 0
  let i = text.length
  while (i > 0) {
    const start = i >= 2 && isLow(text.charCodeAt(i - 1)) && isHigh(text.charCodeAt(i - 2)) ? i - 2 : i - 1
    const [size] = charAt(text, start)
    if (used + size > bytes) break
    used += size
    i = start
  }
  return text.slice(i)
}

/**
 * The output a running call produced and its records have not carried yet, bounded: at most
 * what its next record may hold whole, then the last `tailBytes` of the rest with a count of
 * the bytes between. Memory stays within `wholeBytes + tailBytes` however much a command prints.
 * Pure: the engine (`tool-output.ts`) decides when to take a record.
 */
export class LiveOutput {
  readonly #limits: LiveOutputLimits
  /** Bytes the records taken so far carry. */
  #recorded = 0
  /** Pending output that the next record carries whole. */
  #head = ""
  #headBytes = 0
  /** Pending output past what fits whole: its last `tailBytes`, and how many bytes before it were dropped. */
  #tail = ""
  #tailBytes = 0
  #skipped = 0
  #capped = false

  constructor(limits: LiveOutputLimits = LIVE_OUTPUT_LIMITS) {
    this.#limits = limits
  }

  /** Whether the call's records are done: no more output of it is recorded. */
  get capped(): boolean {
    return this.#capped
  }

  /** Whether the output is past what is recorded whole: from here on records keep tails only. */
  get thinned(): boolean {
    return this.#recorded + this.#headBytes >= this.#limits.wholeBytes || this.#tailBytes > 0 || this.#skipped > 0
  }

  /** Whether a record taken now would carry something. */
  get pending(): boolean {
    return !this.#capped && (this.#headBytes > 0 || this.#tailBytes > 0 || this.#skipped > 0)
  }

  /** Keeps what its bounds allow of `text`; true when a record would carry something. */
  add(text: string): boolean {
    if (this.#capped || text === "") return this.pending
    let rest = text
    const room = this.#limits.wholeBytes - this.#recorded - this.#headBytes
    // Output stays whole only while nothing was dropped before it.
    if (room > 0 && this.#tailBytes === 0 && this.#skipped === 0) {
      const whole = headWithin(rest, room)
      this.#head += whole
      this.#headBytes += utf8Bytes(whole)
      rest = rest.slice(whole.length)
    }
    if (rest !== "") this.#keepTail(rest)
    return this.pending
  }

  #keepTail(text: string) {
    const joined = this.#tail + text
    const kept = tailWithin(joined, this.#limits.tailBytes)
    const joinedBytes = this.#tailBytes + utf8Bytes(text)
    this.#tail = kept
    this.#tailBytes = utf8Bytes(kept)
    this.#skipped += joinedBytes - this.#tailBytes
  }

  /** The records that carry what is pending (none, one, or the whole part and a tail), and forgets it. */
  take(): ReadonlyArray<LiveOutputRecord> {
    if (!this.pending) return []
    const records: Array<LiveOutputRecord> = []
    if (this.#headBytes > 0) {
      records.push({ text: this.#head })
      this.#recorded += this.#headBytes
    }
    if (this.#tailBytes > 0 || this.#skipped > 0) {
      let tail = this.#tail
      let skipped = this.#skipped
      // After a gap a partial first line says little: the tail starts at a line, when it holds one.
      const newline = tail.indexOf("\n")
      if (skipped > 0 && newline >= 0 && newline < tail.length - 1) {
        skipped += utf8Bytes(tail.slice(0, newline + 1))
        tail = tail.slice(newline + 1)
      }
      const room = Math.max(0, this.#limits.maxBytes - this.#recorded)
      const fitted = tailWithin(tail, room)
      skipped += utf8Bytes(tail) - utf8Bytes(fitted)
      records.push({ text: fitted, ...(skipped > 0 ? { skipped } : {}) })
      this.#recorded += utf8Bytes(fitted)
    }
    this.#head = ""
    this.#headBytes = 0
    this.#tail = ""
    this.#tailBytes = 0
    this.#skipped = 0
    // No room left for another tail: this record is the call's last.
    if (this.#limits.maxBytes - this.#recorded < this.#limits.tailBytes) {
      this.#capped = true
      const last = records.pop()
      if (last !== undefined) records.push({ ...last, capped: true })
    }
    return records
  }
}
