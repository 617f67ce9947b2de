import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { LIST_MAX_ENTRIES, makeListFilesTool } from "../../../src/layers/tools/list-files.js"
import { prepare, run, tempOutside, tempWorkspace, writeFiles } from "./workspace-fixture.js"
import { fixedPlaces } from "../../../src/layers/private-places.js"

/** No private places here: walk-bounds.test.ts covers them. */
const listFilesTool = makeListFilesTool(fixedPlaces([]))

const tree = {
  ".gitignore": "node_modules/\n*.log\n/build\n",
  ".git/HEAD": "ref: refs/heads/main\n",
  ".env.example": "A=1\n",
  "README.md": "# hi\n",
  "app.log": "ignored\n",
  "build/out.js": "ignored\n",
  "node_modules/pkg/index.js": "ignored\n",
  "src/index.ts": "export {}\n",
  "src/util/strings.ts": "export {}\n",
  "src/util/strings.test.ts": "export {}\n",
  "src/generated/.gitignore": "*\n!keep.ts\n!.gitignore\n",
  "src/generated/api.ts": "ignored by the nested .gitignore\n",
  "src/generated/keep.ts": "re-included\n",
  "src/build/inner.ts": "/build is anchored to the root, so this stays\n",
  "docs/guide.md": "guide\n",
  "docs/debug.log": "ignored by *.log\n"
}

describe("list_files", () => {
  it.scoped("lists files sorted, relative to the root, honouring root and nested .gitignore and skipping .git", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      yield* writeFiles(root, tree)
      const call = yield* prepare(listFilesTool, {}, root)
      expect(call.risk).toBe("read")
      expect(call.outsideWorkspace).toBe(false)
      expect(call.paths).toEqual([root])
      const result = yield* call.execute
      expect(result).toEqual({
        output: [
          ".env.example",
          ".gitignore",
          "README.md",
          "docs/guide.md",
          "src/build/inner.ts",
          "src/generated/.gitignore",
          "src/generated/keep.ts",
          "src/index.ts",
          "src/util/strings.test.ts",
          "src/util/strings.ts"
        ].join("\n"),
        isError: false
      })
    }))

  it.scoped("filters with a glob, relative to the root or as a bare file-name pattern", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      yield* writeFiles(root, tree)
      const ts = yield* run(listFilesTool, { pattern: "src/**/*.ts" }, root)
      expect(ts.output.split("\n")).toEqual([
        "src/build/inner.ts",
        "src/generated/keep.ts",
        "src/index.ts",
        "src/util/strings.test.ts",
        "src/util/strings.ts"
      ])
      const tests = yield* run(listFilesTool, { pattern: "*.test.ts" }, root)
      expect(tests.output).toBe("src/util/strings.test.ts")
      const none = yield* run(listFilesTool, { pattern: "**/*.rs" }, root)
      expect(none).toEqual({ output: "No files found in ..", isError: false })
    }))

  it.scoped("lists a subdirectory, still under the root's .gitignore, with the glob relative to either", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      yield* writeFiles(root, tree)
      const docs = yield* run(listFilesTool, { path: "docs" }, root)
      expect(docs.output).toBe("docs/guide.md")
      const fromDir = yield* run(listFilesTool, { path: "src", pattern: "util/*.ts" }, root)
      const fromRoot = yield* run(listFilesTool, { path: "src", pattern: "src/util/*.ts" }, root)
      expect(fromDir.output).toBe("src/util/strings.test.ts\nsrc/util/strings.ts")
      expect(fromRoot.output).toBe(fromDir.output)
    }))

  it.scoped("a directory asked for by name is listed even when ignored", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      yield* writeFiles(root, tree)
      const result = yield* run(listFilesTool, { path: "node_modules" }, root)
      expect(result.output).toBe("node_modules/pkg/index.js")
    }))

  it.scoped(`caps the listing at ${LIST_MAX_ENTRIES} entries with a note`, () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      const many: Record<string, string> = {}
      for (let i = 0; i < LIST_MAX_ENTRIES + 50; i++) many[`f/${String(i).padStart(5, "0")}.txt`] = ""
      yield* writeFiles(root, many)
      const result = yield* run(listFilesTool, {}, root)
      const lines = result.output.split("\n")
      expect(lines).toHaveLength(LIST_MAX_ENTRIES + 1)
      expect(lines[0]).toBe("f/00000.txt")
      expect(lines[LIST_MAX_ENTRIES - 1]).toBe(`f/${String(LIST_MAX_ENTRIES - 1).padStart(5, "0")}.txt`)
      expect(lines[LIST_MAX_ENTRIES]).toBe(`[Capped at ${LIST_MAX_ENTRIES} entries; narrow the listing with path or pattern.]`)
    }))

  it.scoped("lists symlinks met on the walk without following them; one leading out of the root is left out and counted", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      const outside = yield* tempOutside
      yield* writeFiles(outside, { "secret/a.txt": "s" })
      yield* writeFiles(root, { "a.txt": "a" })
      yield* Effect.promise(() => fs.symlink(path.join(outside, "secret"), path.join(root, "link")))
      yield* Effect.promise(() => fs.symlink("a.txt", path.join(root, "inner")))
      const result = yield* run(listFilesTool, {}, root)
      expect(result.output).toBe(
        "a.txt\ninner\n[Skipped 1 entry the agent may not read without a person naming it: a link leading outside the workspace (1).]"
      )
      // Named explicitly, the link is followed: the call was flagged as outside and judged as such.
      const named = yield* prepare(listFilesTool, { path: "link" }, root)
      expect(named.outsideWorkspace).toBe(true)
      expect(yield* named.execute).toEqual({ output: "link/a.txt", isError: false })
    }))

  it.scoped("a missing directory is an error result; an outside one is flagged", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      const missing = yield* run(listFilesTool, { path: "nope" }, root)
      expect(missing).toEqual({ output: "no such file or directory: nope", isError: true })
      const outside = yield* prepare(listFilesTool, { path: ".." }, root)
      expect(outside.outsideWorkspace).toBe(true)
    }))

  it.scoped("invalid input is a ToolInputError naming the field", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      const error = yield* Effect.flip(prepare(listFilesTool, { pattern: ["*.ts"] }, root))
      expect(error.message).toContain("pattern: Expected string")
    }))
})
