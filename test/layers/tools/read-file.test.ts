import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as path from "node:path"
import { READ_DEFAULT_LINES, READ_MAX_BYTES, readFileTool } from "../../../src/layers/tools/read-file.js"
import { prepare, run, tempWorkspace, writeFiles } from "./workspace-fixture.js"

const numbered = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `${String(from + i).padStart(6)}\tline ${from + i}`).join("\n")

const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n") + "\n"

describe("read_file", () => {
  it.scoped("returns the file's lines numbered like cat -n", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      yield* writeFiles(root, { "a.txt": "line 1\nline 2\r\nline 3" })
      const result = yield* run(readFileTool, { path: "a.txt" }, root)
      expect(result).toEqual({ output: numbered(1, 3), isError: false })
    }))

  it.scoped("reads a line range with offset and limit, and says how to read on", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      yield* writeFiles(root, { "a.txt": lines(10) })
      const middle = yield* run(readFileTool, { path: "a.txt", offset: 3, limit: 4 }, root)
      expect(middle.isError).toBe(false)
      expect(middle.output).toBe(`${numbered(3, 6)}\n\n[Showing lines 3-6 of 10 (limit of 4 lines). To read more, call read_file with offset=7.]`)
      const tail = yield* run(readFileTool, { path: "a.txt", offset: 8 }, root)
      expect(tail.output).toBe(numbered(8, 10))
    }))

  it.scoped(`caps a long file at ${READ_DEFAULT_LINES} lines`, () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      yield* writeFiles(root, { "long.txt": lines(2500) })
      const result = yield* run(readFileTool, { path: "long.txt" }, root)
      expect(result.output.startsWith(numbered(1, 3))).toBe(true)
      expect(result.output).toContain(`${String(2000).padStart(6)}\tline 2000\n\n[Showing lines 1-2000 of 2500 (limit of 2000 lines)`)
      expect(result.output).not.toContain("line 2001\n")
      expect(result.output).toContain("offset=2001")
    }))

  it.scoped("caps the output bytes and cuts very long lines", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      const wide = Array.from({ length: 400 }, (_, i) => `${i + 1}:${"x".repeat(1500)}`).join("\n")
      yield* writeFiles(root, { "wide.txt": wide, "one.txt": "y".repeat(5000) })
      const result = yield* run(readFileTool, { path: "wide.txt" }, root)
      expect(Buffer.byteLength(result.output)).toBeLessThanOrEqual(READ_MAX_BYTES + 200)
      expect(result.output).toMatch(/\[Showing lines 1-\d+ of 400 \(output is capped at 256 KiB\)\. To read more, call read_file with offset=\d+\.\]$/)
      const cut = yield* run(readFileTool, { path: "one.txt" }, root)
      expect(cut.output).toBe(`     1\t${"y".repeat(2000)}… [3000 more characters]`)
    }))

  it.scoped("streams a file too large to load whole", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      // ~5.9 MB: above the size where read_file stops loading files whole.
      yield* writeFiles(root, { "big.log": lines(600_000) })
      const result = yield* run(readFileTool, { path: "big.log", offset: 599_999 }, root)
      expect(result.output).toBe(numbered(599_999, 600_000))
      const head = yield* run(readFileTool, { path: "big.log", limit: 2 }, root)
      expect(head.output).toBe(`${numbered(1, 2)}\n\n[Showing lines 1-2 (limit of 2 lines). To read more, call read_file with offset=3.]`)
    }))

  it.scoped("a missing file is an error result naming the path", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      const result = yield* run(readFileTool, { path: "nope/missing.txt" }, root)
      expect(result.isError).toBe(true)
      expect(result.output).toContain(path.join(root, "nope/missing.txt"))
      expect(result.output).toContain("no such file")
    }))

  it.scoped("refuses a binary file politely, with its size", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]), Buffer.alloc(3000, 7)])
      yield* writeFiles(root, { "img.png": png })
      const result = yield* run(readFileTool, { path: "img.png" }, root)
      expect(result).toEqual({ output: "img.png is a binary file (2.9 KiB); read_file only shows text files", isError: true })
    }))

  it.scoped("refuses bytes that are not UTF-8 even without a NUL", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      const noise = Buffer.from(Array.from({ length: 2048 }, (_, i) => 0x80 + (i % 0x7f)))
      yield* writeFiles(root, { "blob.bin": noise })
      const result = yield* run(readFileTool, { path: "blob.bin" }, root)
      expect(result.isError).toBe(true)
      expect(result.output).toBe("blob.bin is a binary file (2.0 KiB); read_file only shows text files")
    }))

  it.scoped("reads UTF-8 text with multibyte characters as text", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      yield* writeFiles(root, { "u.txt": "héllo wörld ✓ 日本語\n".repeat(50) })
      const result = yield* run(readFileTool, { path: "u.txt", limit: 1 }, root)
      expect(result.isError).toBe(false)
      expect(result.output).toContain("héllo wörld ✓ 日本語")
    }))

  it.scoped("an offset past the end, an empty file and a directory are told apart", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      yield* writeFiles(root, { "a.txt": lines(3), "empty.txt": "", "dir/x.txt": "x" })
      const past = yield* run(readFileTool, { path: "a.txt", offset: 10 }, root)
      expect(past).toEqual({ output: "offset 10 is past the end of a.txt (3 lines)", isError: true })
      const empty = yield* run(readFileTool, { path: "empty.txt" }, root)
      expect(empty).toEqual({ output: "empty.txt is empty", isError: false })
      const dir = yield* run(readFileTool, { path: "dir" }, root)
      expect(dir.isError).toBe(true)
      expect(dir.output).toContain("dir is a directory")
    }))

  it.scoped("invalid input is a ToolInputError naming the field", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      const missing = yield* Effect.flip(prepare(readFileTool, {}, root))
      expect(missing.message).toContain("path: is missing")
      const zero = yield* Effect.flip(prepare(readFileTool, { path: "a", offset: 0 }, root))
      expect(zero.message).toContain("offset")
      const fraction = yield* Effect.flip(prepare(readFileTool, { path: "a", limit: 1.5 }, root))
      expect(fraction.message).toContain("limit")
    }))
})
