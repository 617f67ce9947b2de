import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as path from "node:path"
import { writeFileTool } from "../../../src/layers/tools/write-file.js"
import { prepare, readText, run, tempWorkspace, writeFiles } from "./workspace-fixture.js"

describe("write_file", () => {
  it.scoped("creates a file and its parent directories; the EditData has a creation diff", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      const call = yield* prepare(writeFileTool, { path: "deep/er/new.txt", content: "one\ntwo\n" }, root)
      expect(call.risk).toBe("write")
      expect(call.summary).toBe("create deep/er/new.txt")
      expect(call.outsideWorkspace).toBe(false)
      expect(call.paths).toEqual([path.join(root, "deep/er/new.txt")])
      const diff = "--- /dev/null\n+++ b/deep/er/new.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n"
      expect(call.detail).toBe(diff)
      const result = yield* call.execute
      expect(result).toEqual({
        output: "Created deep/er/new.txt (2 lines).",
        isError: false,
        data: { _tag: "edit", path: "deep/er/new.txt", before: null, after: "one\ntwo\n", diff }
      })
      expect(yield* readText(path.join(root, "deep/er/new.txt"))).toBe("one\ntwo\n")
    }))

  it.scoped("overwrites a file; before, after and the diff are right", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      yield* writeFiles(root, { "a.txt": "one\ntwo\nthree\n" })
      const call = yield* prepare(writeFileTool, { path: "a.txt", content: "one\n2\nthree\n" }, root)
      expect(call.summary).toBe("write a.txt")
      const diff = "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n"
      expect(call.detail).toBe(diff)
      const result = yield* call.execute
      expect(result).toEqual({
        output: "Wrote a.txt (+1 -1 lines).",
        isError: false,
        data: { _tag: "edit", path: "a.txt", before: "one\ntwo\nthree\n", after: "one\n2\nthree\n", diff }
      })
      expect(yield* readText(path.join(root, "a.txt"))).toBe("one\n2\nthree\n")
    }))

  it.scoped("execute records the file as it is when it runs, not as it was at prepare", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      const call = yield* prepare(writeFileTool, { path: "a.txt", content: "mine\n" }, root)
      yield* writeFiles(root, { "a.txt": "theirs\n" })
      const result = yield* call.execute
      expect(result.data).toMatchObject({ before: "theirs\n", after: "mine\n" })
    }))

  it.scoped("writing over a directory is an error result", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      yield* writeFiles(root, { "dir/x": "x" })
      const call = yield* prepare(writeFileTool, { path: "dir", content: "y" }, root)
      expect(call.detail).toBeUndefined()
      const result = yield* call.execute
      expect(result).toEqual({ output: "dir is a directory, not a file", isError: true })
    }))

  it.scoped("a path outside the workspace is flagged, and written when executed", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      yield* writeFiles(root, { "ws/keep": "" })
      const call = yield* prepare(writeFileTool, { path: "../out.txt", content: "x" }, path.join(root, "ws"))
      expect(call.outsideWorkspace).toBe(true)
      const result = yield* call.execute
      expect(result.isError).toBe(false)
      expect(result.data).toMatchObject({ path: path.join(root, "out.txt") })
      expect(yield* readText(path.join(root, "out.txt"))).toBe("x")
    }))

  it.scoped("invalid input is a ToolInputError naming the field", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      const error = yield* Effect.flip(run(writeFileTool, { path: "a.txt", content: 42 }, root))
      expect(error._tag).toBe("ToolInputError")
      expect(error.message).toContain("content: Expected string, actual 42")
    }))
})
