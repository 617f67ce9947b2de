import { describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck } from "effect"
import * as fs from "node:fs"
import * as fsp from "node:fs/promises"
import * as path from "node:path"
import { countLines, makeLineReader, readLastLine } from "../../../src/layers/event-store/jsonl-lines.js"
import { tempDir } from "./fixtures.js"

/** Writes `content` to a new file in a temp dir and runs `use` on a read handle to it. */
const withFile = <A>(content: string, use: (handle: fsp.FileHandle, size: number) => Promise<A>) =>
  Effect.scoped(
    Effect.gen(function* () {
      const file = path.join(yield* tempDir, "lines.jsonl")
      fs.writeFileSync(file, content)
      const handle = yield* Effect.acquireRelease(
        Effect.promise(() => fsp.open(file, "r")),
        (h) => Effect.promise(() => h.close())
      )
      return yield* Effect.promise(() => use(handle, Buffer.byteLength(content)))
    })
  )

const readAllLines = async (handle: fsp.FileHandle, size: number, chunkSize: number) => {
  const reader = makeLineReader(handle, size, chunkSize)
  const lines: Array<string> = []
  for (let batch = await reader.next(); batch !== undefined; batch = await reader.next()) {
    expect(batch.firstLine).toBe(lines.length + 1)
    lines.push(...batch.lines)
  }
  return { lines, rest: reader.rest(), nextLine: reader.nextLine() }
}

// Lines of any text but "\n", with multi-byte characters; sometimes a truncated tail.
const arbitraries = {
  lines: FastCheck.array(FastCheck.string({ unit: "grapheme", maxLength: 12 }).map((s) => s.replaceAll("\n", "")), {
    maxLength: 8
  }),
  tail: FastCheck.option(FastCheck.string({ unit: "grapheme", minLength: 1, maxLength: 6 }).map((s) => s.replaceAll("\n", "") || "x"), {
    nil: undefined
  }),
  chunkSize: FastCheck.integer({ min: 1, max: 24 })
}

describe("jsonl-lines", () => {
  it.live.prop("reads the same lines in chunks of any size as splitting the whole text", arbitraries, ({ lines, tail, chunkSize }) =>
    withFile(lines.map((l) => `${l}\n`).join("") + (tail ?? ""), async (handle, size) => {
      const read = await readAllLines(handle, size, chunkSize)
      expect(read.lines).toEqual(lines)
      expect(read.rest).toBe(tail ?? "")
      expect(read.nextLine).toBe(lines.length + 1)
    }), { fastCheck: { numRuns: 150 } })

  it.live.prop("finds the last complete line backwards with chunks of any size", arbitraries, ({ lines, tail, chunkSize }) =>
    withFile(lines.map((l) => `${l}\n`).join("") + (tail ?? ""), async (handle, size) => {
      const last = await readLastLine(handle, size, chunkSize)
      const complete = Buffer.byteLength(lines.map((l) => `${l}\n`).join(""))
      expect(last.end).toBe(complete)
      expect(last.text).toBe(lines.length === 0 ? undefined : lines[lines.length - 1])
      const before = lines.slice(0, -1).map((l) => `${l}\n`).join("")
      expect(last.start).toBe(lines.length === 0 ? 0 : Buffer.byteLength(before))
      expect(await countLines(handle, last.start, chunkSize)).toBe(Math.max(0, lines.length - 1))
    }), { fastCheck: { numRuns: 150 } })

  it.live("an empty file has no lines", () =>
    withFile("", async (handle) => {
      expect(await readLastLine(handle, 0)).toEqual({ end: 0, start: 0, text: undefined })
      expect((await readAllLines(handle, 0, 8)).lines).toEqual([])
    }))

  it.live("fails, rather than inventing bytes, when the file is shorter than said", () =>
    withFile("abc\n", async (handle) => {
      await expect(readLastLine(handle, 10)).rejects.toThrow(/ended at byte/)
    }))
})
