import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { editFileTool } from "../../../src/layers/tools/edit-file.js"
import { makeGrepTool } from "../../../src/layers/tools/grep.js"
import { makeListFilesTool } from "../../../src/layers/tools/list-files.js"
import { readFileTool } from "../../../src/layers/tools/read-file.js"
import { writeFileTool } from "../../../src/layers/tools/write-file.js"
import { prepare, tempOutside, tempWorkspace, writeFiles } from "./workspace-fixture.js"
import { fixedPlaces } from "../../../src/layers/private-places.js"

const grepTool = makeGrepTool(fixedPlaces([]))
const listFilesTool = makeListFilesTool(fixedPlaces([]))

const symlink = (target: string, at: string) => Effect.promise(() => fs.symlink(target, at))

describe("the workspace boundary", () => {
  it.scoped("a relative path inside is not flagged, and paths are absolute", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      yield* writeFiles(root, { "src/a.ts": "x" })
      const call = yield* prepare(readFileTool, { path: "src/../src/a.ts" }, root)
      expect(call.outsideWorkspace).toBe(false)
      expect(call.paths).toEqual([path.join(root, "src/a.ts")])
      expect(call.risk).toBe("read")
      expect(call.summary).toBe("read src/a.ts")
    }))

  it.scoped("`..` escaping the root is flagged, not refused", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      const call = yield* prepare(readFileTool, { path: "../x" }, root)
      expect(call.outsideWorkspace).toBe(true)
      expect(call.paths).toEqual([path.resolve(root, "../x")])
    }))

  it.scoped("an absolute path elsewhere is flagged, and still readable once allowed", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      const call = yield* prepare(readFileTool, { path: "/etc/passwd" }, root)
      expect(call.outsideWorkspace).toBe(true)
      expect(call.paths).toEqual(["/etc/passwd"])
      const result = yield* call.execute
      expect(result.isError).toBe(false)
      expect(result.output).toContain("root")
    }))

  it.scoped("an absolute path inside the root is not flagged", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      const call = yield* prepare(writeFileTool, { path: path.join(root, "new.txt"), content: "x" }, root)
      expect(call.outsideWorkspace).toBe(false)
    }))

  it.scoped("a symlink inside the workspace pointing outside is flagged", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      const outside = yield* tempOutside
      yield* writeFiles(outside, { "secret.txt": "s3cret" })
      yield* symlink(path.join(outside, "secret.txt"), path.join(root, "innocent.txt"))
      const read = yield* prepare(readFileTool, { path: "innocent.txt" }, root)
      expect(read.outsideWorkspace).toBe(true)
      const edit = yield* prepare(editFileTool, { path: "innocent.txt", old_string: "s3cret", new_string: "x" }, root)
      expect(edit.outsideWorkspace).toBe(true)
    }))

  it.scoped("a file under a symlinked parent directory pointing outside is flagged, even if it does not exist yet", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      const outside = yield* tempOutside
      yield* symlink(outside, path.join(root, "linked"))
      const write = yield* prepare(writeFileTool, { path: "linked/deeper/new.txt", content: "x" }, root)
      expect(write.outsideWorkspace).toBe(true)
      const list = yield* prepare(listFilesTool, { path: "linked" }, root)
      expect(list.outsideWorkspace).toBe(true)
      const grep = yield* prepare(grepTool, { pattern: "x", path: "linked" }, root)
      expect(grep.outsideWorkspace).toBe(true)
    }))

  it.scoped("a dangling symlink whose target would be outside is flagged", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      const outside = yield* tempOutside
      yield* symlink(path.join(outside, "not-yet.txt"), path.join(root, "dangling.txt"))
      const call = yield* prepare(writeFileTool, { path: "dangling.txt", content: "x" }, root)
      expect(call.outsideWorkspace).toBe(true)
    }))

  it.scoped("a symlink that stays inside the workspace is not flagged", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      yield* writeFiles(root, { "real/a.txt": "a" })
      yield* symlink(path.join(root, "real"), path.join(root, "alias"))
      const call = yield* prepare(readFileTool, { path: "alias/a.txt" }, root)
      expect(call.outsideWorkspace).toBe(false)
    }))
})
