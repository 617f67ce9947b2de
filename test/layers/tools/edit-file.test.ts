import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as path from "node:path"
import { editFileTool } from "../../../src/layers/tools/edit-file.js"
import { prepare, readText, run, tempWorkspace, writeFiles } from "./workspace-fixture.js"

const source = "function add(a, b) {\n  return a + b\n}\n\nfunction sub(a, b) {\n  return a - b\n}\n"

describe("edit_file", () => {
  it.scoped("replaces a unique match; prepare shows the diff, execute writes it and returns EditData", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      yield* writeFiles(root, { "src/math.js": source })
      const call = yield* prepare(editFileTool, { path: "src/math.js", old_string: "return a - b", new_string: "return a - b - 0" }, root)
      expect(call.risk).toBe("write")
      expect(call.summary).toBe("edit src/math.js")
      const diff =
        "--- a/src/math.js\n+++ b/src/math.js\n@@ -3,5 +3,5 @@\n }\n \n function sub(a, b) {\n-  return a - b\n+  return a - b - 0\n }\n"
      expect(call.detail).toBe(diff)
      const result = yield* call.execute
      const after = source.replace("return a - b", "return a - b - 0")
      expect(result).toEqual({
        output: `Edited src/math.js (1 replacement):\n${diff}`,
        isError: false,
        data: { _tag: "edit", path: "src/math.js", before: source, after, diff }
      })
      expect(yield* readText(path.join(root, "src/math.js"))).toBe(after)
    }))

  it.scoped("several matches without replace_all is an error result saying how many, and nothing is written", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      yield* writeFiles(root, { "math.js": source })
      const call = yield* prepare(editFileTool, { path: "math.js", old_string: "(a, b) {", new_string: "(x, y) {" }, root)
      expect(call.detail).toBeUndefined()
      const result = yield* call.execute
      expect(result.isError).toBe(true)
      expect(result.output).toContain("old_string occurs 2 times in math.js (at lines 1, 5)")
      expect(result.output).toContain("Include more surrounding lines")
      expect(result.output).toContain("replace_all")
      expect(yield* readText(path.join(root, "math.js"))).toBe(source)
    }))

  it.scoped("replace_all replaces every occurrence", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      yield* writeFiles(root, { "math.js": source })
      const result = yield* run(editFileTool, { path: "math.js", old_string: "(a, b)", new_string: "(x, y)", replace_all: true }, root)
      expect(result.isError).toBe(false)
      expect(result.output).toContain("(2 replacements)")
      expect(yield* readText(path.join(root, "math.js"))).toBe(source.replaceAll("(a, b)", "(x, y)"))
    }))

  it.scoped("zero matches is an error result pointing at the closest line", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      yield* writeFiles(root, { "math.js": source })
      const result = yield* run(editFileTool, { path: "math.js", old_string: "return a * b", new_string: "return 0" }, root)
      expect(result.isError).toBe(true)
      expect(result.output).toContain("old_string was not found in math.js")
      expect(result.output).toMatch(/closest line is [26]: "  return a [+-] b"/)
      expect(yield* readText(path.join(root, "math.js"))).toBe(source)
    }))

  it.scoped("zero matches that differ only in whitespace says so", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      yield* writeFiles(root, { "math.js": source })
      const result = yield* run(editFileTool, { path: "math.js", old_string: "function add(a, b) {\n    return a + b", new_string: "x" }, root)
      expect(result.isError).toBe(true)
      expect(result.output).toContain("does match if whitespace is ignored")
    }))

  it.scoped("new_string is inserted literally, `$&` and all", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      yield* writeFiles(root, { "a.txt": "price: X\n" })
      yield* run(editFileTool, { path: "a.txt", old_string: "X", new_string: "$& $1 $$" }, root)
      expect(yield* readText(path.join(root, "a.txt"))).toBe("price: $& $1 $$\n")
    }))

  it.scoped("a file with CRLF line endings matches an old_string written with \\n, and keeps its CRLFs", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      yield* writeFiles(root, { "win.txt": "one\r\ntwo\r\nthree\r\n" })
      const result = yield* run(editFileTool, { path: "win.txt", old_string: "one\ntwo", new_string: "1\n2" }, root)
      expect(result.isError).toBe(false)
      expect(yield* readText(path.join(root, "win.txt"))).toBe("1\r\n2\r\nthree\r\n")
    }))

  it.scoped("a missing file is an error result naming the path and pointing at write_file", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      const call = yield* prepare(editFileTool, { path: "ghost.txt", old_string: "a", new_string: "b" }, root)
      const result = yield* call.execute
      expect(result).toEqual({ output: "file not found: ghost.txt (to create a file, use write_file)", isError: true })
    }))

  it.scoped("execute re-reads the file: a match that became unique after prepare is applied", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      yield* writeFiles(root, { "a.txt": "x x\n" })
      const call = yield* prepare(editFileTool, { path: "a.txt", old_string: "x", new_string: "y" }, root)
      expect(call.detail).toBeUndefined()
      yield* writeFiles(root, { "a.txt": "x\n" })
      const result = yield* call.execute
      expect(result.isError).toBe(false)
      expect(yield* readText(path.join(root, "a.txt"))).toBe("y\n")
    }))

  it.scoped("invalid input is a ToolInputError naming the field", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      const missing = yield* Effect.flip(prepare(editFileTool, { path: "a.txt", old_string: "a" }, root))
      expect(missing.message).toContain("new_string: is missing")
      const empty = yield* Effect.flip(prepare(editFileTool, { path: "a.txt", old_string: "", new_string: "b" }, root))
      expect(empty.message).toContain("old_string")
      const flag = yield* Effect.flip(prepare(editFileTool, { path: "a.txt", old_string: "a", new_string: "b", replace_all: "yes" }, root))
      expect(flag.message).toContain("replace_all: Expected boolean")
      const same = yield* Effect.flip(prepare(editFileTool, { path: "a.txt", old_string: "a", new_string: "a" }, root))
      expect(same.message).toContain("identical")
    }))
})
