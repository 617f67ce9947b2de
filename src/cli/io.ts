import * as Effect from "effect/Effect"
import type { Writable } from "node:stream"
import { dismissEarlyFrame } from "./early-frame-handle.js"
import type { Segment } from "./render.js"
import { eraseRows, type Printable, type TerminalText, terminalString } from "./terminal-text.js"

const closed = new WeakSet<Writable | NodeJS.WritableStream>()

/** A reader that went away (`| head`) is not an error: stop writing to it, quietly. */
const watch = (stream: NodeJS.WriteStream) =>
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error
    closed.add(stream)
    stream.emit("drain")
  })
watch(process.stdout)
watch(process.stderr)

/** Resumes once the stream drained: its buffer was full, so a huge export never piles up in memory. */
const drained = (stream: Writable): Effect.Effect<void> =>
  Effect.async<void>((resume) => {
    stream.once("drain", () => resume(Effect.void))
  })

/** Whether the last text written to a stream ended its line (true before the first write). */
const lineEnded = new WeakMap<Writable | NodeJS.WritableStream, boolean>()

export const atLineStart = (stream: Writable | NodeJS.WritableStream): boolean => lineEnded.get(stream) ?? true

/** The lines drawn in place on a terminal (the progress indicator), while they are on the screen. */
let transient: Writable | NodeJS.WritableStream | undefined
/** How many rows they take. */
let transientRows = 1

/** Takes the transient lines off the screen, if they are on it. */
export const eraseTransient = (): void => {
  const stream = transient
  if (stream === undefined) return
  transient = undefined
  if (!closed.has(stream)) stream.write(eraseRows(transientRows).text)
}

/**
 * Writes the text now; false when the stream's buffer is full and the writer should wait for its
 * drain. The one place the CLI writes to a stream: a plain string is sanitized here
 * (`terminal-text.ts`), so no content reaches a terminal with its control characters.
 */
const writeNow = (stream: Writable | NodeJS.WritableStream, value: Printable): boolean => {
  const text = terminalString(value)
  if (text.length === 0 || closed.has(stream)) return true
  // The launcher's frame of a session that did not start (a usage error, the trust question) goes first.
  dismissEarlyFrame()
  eraseTransient()
  lineEnded.set(stream, text.endsWith("\n"))
  return stream.write(text)
}

/**
 * Draws lines in place (no final newline) that any other write through these writers erases
 * first, so they never mix with what they print: the caller draws them only with the cursor at
 * a line's start (`atLineStart`), each narrower than the terminal, and redraws them as they change.
 */
export const drawTransient = (stream: Writable | NodeJS.WritableStream, lines: TerminalText): void => {
  if (closed.has(stream)) return
  dismissEarlyFrame()
  if (transient !== stream) eraseTransient()
  // What this stream shows in place now goes; on a line of its own, that line.
  const erase = eraseRows(transient === stream ? transientRows : 1)
  transient = stream
  transientRows = lines.text.split("\n").length
  stream.write(erase.text + lines.text)
}

/**
 * For what cannot wait as an effect (a logger, the last error before exit, a question asked on a
 * stream the caller names): written now, sanitized the same way.
 */
export const writeSync = (stream: Writable | NodeJS.WritableStream, value: Printable): void => {
  writeNow(stream, value)
}

/**
 * Writers on two streams. A write happens at once and suspends only when it filled its
 * stream's buffer: the usual write costs no suspension (the CLI writes a few times per event).
 */
export const makeWriters = (streams: { readonly out: Writable; readonly err: Writable }) => {
  const writeTo = (stream: Writable, text: Printable): Effect.Effect<void> =>
    Effect.suspend(() => (writeNow(stream, text) ? Effect.void : drained(stream)))

  /** The segments in order; after a write that filled its stream's buffer, the rest wait for its drain. */
  const writeSegments = (segments: ReadonlyArray<Segment>): Effect.Effect<void> =>
    Effect.suspend(() => {
      for (const [i, segment] of segments.entries()) {
        const stream = segment.channel === "out" ? streams.out : streams.err
        if (!writeNow(stream, segment.text)) return Effect.zipRight(drained(stream), writeSegments(segments.slice(i + 1)))
      }
      return Effect.void
    })

  return {
    stdout: (text: Printable) => writeTo(streams.out, text),
    stderr: (text: Printable) => writeTo(streams.err, text),
    writeSegments
  }
}

export const { stdout, stderr, writeSegments } = makeWriters({ out: process.stdout, err: process.stderr })

/** Calls `done` once stdout and then stderr have taken everything written to them (each callback runs after the writes before it). */
export const whenFlushed = (done: () => void): void => {
  process.stdout.write("", () => process.stderr.write("", done))
}

export const useColor = (stream: NodeJS.WriteStream) => stream.isTTY === true && process.env["NO_COLOR"] === undefined
