import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Files } from "../../../src/services/ToolRouter.js"
import * as path from "node:path"
import { LocalFileAccess, LocalFilesLive } from "../../../src/layers/tools/local-file-access.js"
import { readText, tempWorkspace, writeFiles } from "./workspace-fixture.js"

describe("LocalFileAccess", () => {
  it.scoped("writes UTF-8 text, creating parent directories, and reads it back", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      const target = path.join(root, "a/b/c.txt")
      yield* LocalFileAccess.writeText(target, "héllo\n")
      expect(yield* readText(target)).toBe("héllo\n")
      expect(yield* LocalFileAccess.readText(target)).toBe("héllo\n")
    }))

  it.scoped("small files (read synchronously) and large ones (read through the thread pool) come back whole", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      const small = "é".repeat(1000)
      // Above the synchronous-read limit, with multi-byte characters across every chunk boundary.
      const large = "aé€😀\n".repeat(40_000)
      yield* writeFiles(root, { "small.txt": small, "large.txt": large })
      expect(yield* LocalFileAccess.readText(path.join(root, "small.txt"))).toBe(small)
      expect(yield* LocalFileAccess.readText(path.join(root, "large.txt"))).toBe(large)
    }))

  it.scoped("a missing file is a FileAccessError naming the path", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      const target = path.join(root, "missing.txt")
      const error = yield* Effect.flip(LocalFileAccess.readText(target))
      expect(error).toMatchObject({ _tag: "FileAccessError", path: target, message: `no such file or directory: ${target}` })
    }))

  it.scoped("a directory is a FileAccessError saying so, for reads and writes", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      yield* writeFiles(root, { "dir/x.txt": "x" })
      const dir = path.join(root, "dir")
      expect((yield* Effect.flip(LocalFileAccess.readText(dir))).message).toBe(`${dir} is a directory, not a file`)
      expect((yield* Effect.flip(LocalFileAccess.writeText(dir, "y"))).message).toBe(`${dir} is a directory, not a file`)
    }))

  it.scoped("a write under a path whose parent is a file fails clearly", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      yield* writeFiles(root, { "file.txt": "x" })
      const target = path.join(root, "file.txt/inner.txt")
      const error = yield* Effect.flip(LocalFileAccess.writeText(target, "y"))
      expect(error.path).toBe(target)
      expect(error.message).toBe(`a parent of ${target} is not a directory`)
    }))

  it.scoped("LocalFilesLive provides it as the Files service", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      const files = yield* Files
      yield* files.writeText(path.join(root, "x.txt"), "via layer")
      expect(yield* readText(path.join(root, "x.txt"))).toBe("via layer")
    }).pipe(Effect.provide(LocalFilesLive)))
})
