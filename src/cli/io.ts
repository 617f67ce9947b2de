import * as Effect from "effect/Effect"
import type { Segment } from "./render.js"

const closed = new WeakSet<NodeJS.WriteStream>()

/** A reader that went away (`| head`) is not an error: stop writing to it, quietly. */
const watch = (stream: NodeJS.WriteStream) =>
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error
    closed.add(stream)
    stream.emit("drain")
  })
watch(process.stdout)
watch(process.stderr)

/** Writes to a stream, waiting for `drain` when its buffer is full, so a huge export never piles up in memory. */
const writeTo = (stream: NodeJS.WriteStream, text: string): Effect.Effect<void> =>
  text.length === 0 || closed.has(stream)
    ? Effect.void
    : Effect.async<void>((resume) => {
        if (stream.write(text)) return resume(Effect.void)
        stream.once("drain", () => resume(Effect.void))
      })

export const stdout = (text: string) => writeTo(process.stdout, text)
export const stderr = (text: string) => writeTo(process.stderr, text)

export const writeSegments = (segments: ReadonlyArray<Segment>) =>
  Effect.forEach(segments, (s) => (s.channel === "out" ? stdout(s.text) : stderr(s.text)), { discard: true })

export const useColor = (stream: NodeJS.WriteStream) => stream.isTTY === true && process.env["NO_COLOR"] === undefined
