import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { Writable } from "node:stream"
import { makeWriters } from "../../src/cli/io.js"

/** A writable with a tiny buffer whose writes complete only when the test says so. */
const slowSink = () => {
  const written: Array<string> = []
  const pending: Array<() => void> = []
  const stream = new Writable({
    highWaterMark: 8,
    decodeStrings: false,
    write(chunk: unknown, _encoding, callback) {
      written.push(String(chunk))
      pending.push(() => callback())
    }
  })
  const flush = () => {
    for (const done of pending.splice(0)) done()
  }
  return { stream, written, flush }
}

/** A writable that takes everything at once. */
const sink = () => {
  const written: Array<string> = []
  const stream = new Writable({
    decodeStrings: false,
    write(chunk: unknown, _encoding, callback) {
      written.push(String(chunk))
      callback()
    }
  })
  return { stream, written }
}

describe("the CLI's writers", () => {
  it.effect("write segments in order to their streams", () =>
    Effect.gen(function* () {
      const out = sink()
      const err = sink()
      const writers = makeWriters({ out: out.stream, err: err.stream })
      yield* writers.writeSegments([
        { channel: "out", text: "a" },
        { channel: "err", text: "b" },
        { channel: "out", text: "" },
        { channel: "out", text: "c" }
      ])
      expect(out.written).toEqual(["a", "c"])
      expect(err.written).toEqual(["b"])
    }))

  it.live("wait for the drain when a write fills the buffer, and write the rest after it", () =>
    Effect.gen(function* () {
      const out = slowSink()
      const err = sink()
      const writers = makeWriters({ out: out.stream, err: err.stream })
      const fiber = yield* Effect.fork(
        writers.writeSegments([
          { channel: "out", text: "more than eight bytes" },
          { channel: "err", text: "after the drain" }
        ])
      )
      yield* Effect.sleep("20 millis")
      expect(fiber.unsafePoll()).toBeNull()
      expect(err.written).toEqual([])
      out.flush()
      yield* Fiber.join(fiber)
      expect(out.written).toEqual(["more than eight bytes"])
      expect(err.written).toEqual(["after the drain"])
    }))

  it.live("a plain write waits for the drain too", () =>
    Effect.gen(function* () {
      const out = slowSink()
      const writers = makeWriters({ out: out.stream, err: sink().stream })
      const fiber = yield* Effect.fork(writers.stdout("more than eight bytes"))
      yield* Effect.sleep("20 millis")
      expect(fiber.unsafePoll()).toBeNull()
      out.flush()
      yield* Fiber.join(fiber)
      expect(out.written).toEqual(["more than eight bytes"])
    }))
})

describe("the transient line (the progress indicator)", () => {
  it.effect("any write erases it first; the cursor's place at a line's start is known per stream", () =>
    Effect.gen(function* () {
      const { atLineStart, drawTransient, eraseTransient } = yield* Effect.promise(() => import("../../src/cli/io.js"))
      const { term } = yield* Effect.promise(() => import("../../src/cli/terminal-text.js"))
      const out = sink()
      const err = sink()
      const writers = makeWriters({ out: out.stream, err: err.stream })
      drawTransient(err.stream, term`⠋ thinking 1s`)
      yield* writers.stdout("answer\n")
      expect(err.written).toEqual(["\r\x1b[2K⠋ thinking 1s", "\r\x1b[2K"])
      expect(out.written).toEqual(["answer\n"])
      // Erased once: a second write has nothing to erase.
      yield* writers.stderr("partial")
      expect(err.written.slice(2)).toEqual(["partial"])
      expect(atLineStart(err.stream)).toBe(false)
      expect(atLineStart(out.stream)).toBe(true)
      eraseTransient()
      expect(err.written).toHaveLength(3)
    })
  )

  it.effect("lines drawn in place are all erased: redrawn over themselves, and before any other write", () =>
    Effect.gen(function* () {
      const { drawTransient } = yield* Effect.promise(() => import("../../src/cli/io.js"))
      const { joinText, term } = yield* Effect.promise(() => import("../../src/cli/terminal-text.js"))
      const out = sink()
      const err = sink()
      const writers = makeWriters({ out: out.stream, err: err.stream })
      drawTransient(err.stream, joinText([term`⠋ shell 1s`, term`  one`, term`  two`], "\n"))
      drawTransient(err.stream, joinText([term`⠙ shell 1s`, term`  one`], "\n"))
      yield* writers.stderr("done\n")
      expect(err.written).toEqual([
        "\r\x1b[2K⠋ shell 1s\n  one\n  two",
        // Three rows up to the first, then the new two.
        "\r\x1b[2K\x1b[1A\x1b[2K\x1b[1A\x1b[2K⠙ shell 1s\n  one",
        "\r\x1b[2K\x1b[1A\x1b[2K",
        "done\n"
      ])
    })
  )
})
