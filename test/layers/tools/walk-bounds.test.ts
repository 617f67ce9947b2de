import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { type PrivatePlace, fixedPlaces } from "../../../src/layers/private-places.js"
import { makeGrepTool } from "../../../src/layers/tools/grep.js"
import { makeListFilesTool } from "../../../src/layers/tools/list-files.js"
import { readSearchable } from "../../../src/layers/tools/searchable-file.js"
import { MOVED_WHILE_WALKED, skippedNote, walkBounds } from "../../../src/layers/tools/walk-bounds.js"
import { newWalkStats, walkFiles } from "../../../src/layers/tools/workspace-walk.js"
import { prepare, run, tempOutside, tempWorkspace, writeFiles } from "./workspace-fixture.js"

const linux = process.platform === "linux"
const root = process.getuid?.() === 0
const symlink = (target: string, at: string) => Effect.promise(() => fs.symlink(target, at))

/** The walk's two tools over `places`, and their output for an input. */
const tools = (places: ReadonlyArray<PrivatePlace>) => {
  const grep = makeGrepTool(fixedPlaces(places))
  const list = makeListFilesTool(fixedPlaces(places))
  return {
    grep: (input: Record<string, unknown>, ws: string) => Effect.map(run(grep, { pattern: "MARK", ...input }, ws), (r) => r.output),
    list: (input: Record<string, unknown>, ws: string) => Effect.map(run(list, input, ws), (r) => r.output)
  }
}

/** Every file the walk of `ws` yields, relative to it, and its tallies. */
const walked = (ws: string, places: ReadonlyArray<PrivatePlace>) =>
  Effect.promise(async () => {
    const stats = newWalkStats()
    const bounds = walkBounds(places, { absolute: ws, real: ws, display: "." })
    const found: Array<string> = []
    for await (const file of walkFiles(ws, ws, { signal: new AbortController().signal, maxEntries: 10_000, stats, bounds })) {
      found.push(path.relative(ws, file.absolute))
    }
    return { found, stats }
  })

describe("a walk leaves out what a direct read may not take", () => {
  it.scoped("a private place below the root is pruned whole, counted once, and named by what it is", () =>
    Effect.gen(function* () {
      const ws = yield* tempWorkspace
      yield* writeFiles(ws, {
        "a.txt": "MARK a\n",
        "home/.ssh/id_rsa": "MARK key\n",
        "home/.ssh/deep/more": "MARK more\n",
        "home/.netrc": "MARK netrc\n",
        "home/notes.txt": "MARK notes\n",
        "data/sessions/x.jsonl": "MARK transcript\n"
      })
      const places: ReadonlyArray<PrivatePlace> = [
        { path: path.join(ws, "home", ".ssh"), what: "the credential store ~/.ssh" },
        { path: path.join(ws, "home", ".netrc"), what: "the credential store ~/.netrc" },
        { path: path.join(ws, "data"), what: "the agent's data directory" }
      ]
      const { grep, list } = tools(places)
      const note =
        "[Skipped 3 entries the agent may not read without a person naming them: the agent's data directory (1), " +
        "the credential store ~/.netrc (1), the credential store ~/.ssh (1).]"
      expect(yield* grep({}, ws)).toBe(["a.txt:1:MARK a", "home/notes.txt:1:MARK notes", note].join("\n"))
      expect(yield* list({}, ws)).toBe(["a.txt", "home/notes.txt", note].join("\n"))
      // A root inside a place was named by a person (the engine always asks one there): it is walked.
      expect(yield* grep({ path: "home/.ssh" }, ws)).toBe("home/.ssh/deep/more:1:MARK more\nhome/.ssh/id_rsa:1:MARK key")
      // Named as a file, the one file the call was judged on is read.
      expect(yield* grep({ path: "home/.netrc" }, ws)).toBe("home/.netrc:1:MARK netrc")
    }))

  it.scoped("links are judged where they lead: into a place or out of the root is left out, inside is listed, never read by grep", () =>
    Effect.gen(function* () {
      const ws = yield* tempWorkspace
      const outside = yield* tempOutside
      yield* writeFiles(outside, { "keys/id": "MARK key\n", "other.txt": "MARK other\n" })
      yield* writeFiles(ws, { "src/a.txt": "MARK a\n", "src/b.txt": "MARK b\n" })
      const places: ReadonlyArray<PrivatePlace> = [{ path: path.join(outside, "keys"), what: "the credential store ~/.ssh" }]
      yield* symlink(path.join(outside, "keys"), path.join(ws, "src", "to-keys"))
      yield* symlink(path.join(outside, "keys", "id"), path.join(ws, "src", "to-key-file"))
      yield* symlink(path.join(outside, "other.txt"), path.join(ws, "src", "to-outside"))
      yield* symlink("b.txt", path.join(ws, "src", "to-b"))
      // Out of the root `src`, though inside the workspace.
      yield* writeFiles(ws, { "top.txt": "MARK top\n" })
      yield* symlink("../top.txt", path.join(ws, "src", "to-top"))
      const { grep, list } = tools(places)
      const note =
        "[Skipped 4 entries the agent may not read without a person naming them: " +
        "a link into the credential store ~/.ssh (2), a link leading outside src (2).]"
      expect(yield* list({ path: "src" }, ws)).toBe(["src/a.txt", "src/b.txt", "src/to-b", note].join("\n"))
      expect(yield* grep({ path: "src" }, ws)).toBe(["src/a.txt:1:MARK a", "src/b.txt:1:MARK b", note].join("\n"))
    }))

  it.scoped("a place that is itself a link is judged at both its names", () =>
    Effect.gen(function* () {
      const ws = yield* tempWorkspace
      const outside = yield* tempOutside
      yield* writeFiles(outside, { "real-keys/id": "MARK key\n" })
      yield* writeFiles(ws, { "home/notes.txt": "MARK notes\n" })
      yield* symlink(path.join(outside, "real-keys"), path.join(ws, "home", ".ssh"))
      yield* symlink(path.join(outside, "real-keys"), path.join(ws, "home", "another-name"))
      const { list } = tools([{ path: path.join(ws, "home", ".ssh"), what: "the credential store ~/.ssh" }])
      expect(yield* list({ path: "home" }, ws)).toBe(
        "home/notes.txt\n[Skipped 2 entries the agent may not read without a person naming them: a link into the credential store ~/.ssh (2).]"
      )
    }))

  it.scoped("broken links, link loops and a link to the root's parent are judged without hanging", () =>
    Effect.gen(function* () {
      const ws = yield* tempWorkspace
      yield* writeFiles(ws, { "d/a.txt": "MARK a\n" })
      yield* symlink("missing.txt", path.join(ws, "d", "dangling-in"))
      yield* symlink("../../nowhere/x", path.join(ws, "d", "dangling-out"))
      yield* symlink("loop-b", path.join(ws, "d", "loop-a"))
      yield* symlink("loop-a", path.join(ws, "d", "loop-b"))
      yield* symlink("self", path.join(ws, "d", "self"))
      yield* symlink("..", path.join(ws, "d", "up"))
      const { found, stats } = yield* walked(path.join(ws, "d"), [])
      // A dangling link inside is a name, listed; the one leading out is left out like any link out.
      expect(found).toContain("a.txt")
      expect(found).toContain("dangling-in")
      expect(found).not.toContain("dangling-out")
      expect(found).not.toContain("up")
      expect(stats.skipped.get("a link leading outside the workspace")).toBeGreaterThanOrEqual(2)
      const { grep } = tools([])
      expect(yield* grep({}, path.join(ws, "d"))).toContain("a.txt:1:MARK a")
    }))

  it.scoped.skipIf(!linux)("a fifo on the walk is not waited on, nor one a link leads to", () =>
    Effect.gen(function* () {
      const ws = yield* tempWorkspace
      yield* writeFiles(ws, { "a.txt": "MARK a\n" })
      execFileSync("mkfifo", [path.join(ws, "pipe")])
      yield* symlink("pipe", path.join(ws, "to-pipe"))
      const { grep, list } = tools([])
      expect(yield* grep({}, ws)).toBe("a.txt:1:MARK a")
      expect(yield* list({}, ws)).toBe("a.txt\nto-pipe")
    }), 10_000)

  it.scoped.skipIf(root)("an unreadable folder is counted, not fatal, and the rest is walked", () =>
    Effect.gen(function* () {
      const ws = yield* tempWorkspace
      yield* writeFiles(ws, { "a.txt": "MARK a\n", "locked/b.txt": "MARK b\n" })
      yield* Effect.acquireRelease(
        Effect.promise(() => fs.chmod(path.join(ws, "locked"), 0o000)),
        () => Effect.promise(() => fs.chmod(path.join(ws, "locked"), 0o755))
      )
      const { grep } = tools([])
      expect(yield* grep({}, ws)).toBe("a.txt:1:MARK a\n[1 directories could not be read.]")
    }))

  it.scoped("a folder gone between its listing and its reading is counted as unreadable, not fatal", () =>
    Effect.gen(function* () {
      const ws = yield* tempWorkspace
      yield* writeFiles(ws, { "a/first.txt": "MARK first\n", "b/second.txt": "MARK second\n", "c/third.txt": "MARK third\n" })
      const result = yield* Effect.promise(async () => {
        const stats = newWalkStats()
        const bounds = walkBounds([], { absolute: ws, real: ws, display: "." })
        const found: Array<string> = []
        for await (const file of walkFiles(ws, ws, { signal: new AbortController().signal, maxEntries: 100, stats, bounds })) {
          found.push(path.relative(ws, file.absolute))
          if (found.length === 1) await fs.rm(path.join(ws, "b"), { recursive: true })
        }
        return { found, stats }
      })
      expect(result.found).toEqual(["a/first.txt", "c/third.txt"])
      expect(result.stats.unreadableDirectories).toBe(1)
    }))

  it.scoped.skipIf(!linux)("a folder swapped for a link while the walk runs is not walked through the link", () =>
    Effect.gen(function* () {
      const ws = yield* tempWorkspace
      const outside = yield* tempOutside
      yield* writeFiles(outside, { "secret.txt": "MARK secret\n" })
      yield* writeFiles(ws, { "a/first.txt": "MARK first\n", "b/second.txt": "MARK second\n" })
      const result = yield* Effect.promise(async () => {
        const stats = newWalkStats()
        const bounds = walkBounds([], { absolute: ws, real: ws, display: "." })
        const found: Array<string> = []
        for await (const file of walkFiles(ws, ws, { signal: new AbortController().signal, maxEntries: 100, stats, bounds })) {
          found.push(path.relative(ws, file.absolute))
          // Once the walk is in `a`, `b` (already listed as a folder) becomes a link out.
          if (found.length === 1) {
            await fs.rm(path.join(ws, "b"), { recursive: true })
            await fs.symlink(outside, path.join(ws, "b"))
          }
        }
        return { found, stats }
      })
      expect(result.found).toEqual(["a/first.txt"])
      expect(result.stats.skipped.get(MOVED_WHILE_WALKED)).toBe(1)
    }))

  it.scoped.skipIf(!linux)("a file swapped for a link after the walk met it is not read", () =>
    Effect.gen(function* () {
      const ws = yield* tempWorkspace
      const outside = yield* tempOutside
      yield* writeFiles(outside, { "secret.txt": "MARK secret\n" })
      yield* writeFiles(ws, { "a.txt": "MARK a\n" })
      const real = path.join(ws, "a.txt")
      yield* Effect.promise(() => fs.rm(real))
      yield* symlink(path.join(outside, "secret.txt"), real)
      const read = yield* Effect.promise(() => readSearchable({ absolute: real, real, symlink: false }, 1024, new AbortController().signal))
      expect(read).toEqual({ kind: "moved" })
    }))

  it.scoped("a root swapped for a link since the call was judged is refused, naming where it leads", () =>
    Effect.gen(function* () {
      const ws = yield* tempWorkspace
      const outside = yield* tempOutside
      yield* writeFiles(ws, { "src/a.txt": "MARK a\n" })
      yield* writeFiles(outside, { "secret.txt": "MARK secret\n" })
      const call = yield* prepare(makeGrepTool(fixedPlaces([])), { pattern: "MARK", path: "src" }, ws)
      yield* Effect.promise(() => fs.rm(path.join(ws, "src"), { recursive: true }))
      yield* symlink(outside, path.join(ws, "src"))
      const result = yield* call.execute
      expect(result.isError).toBe(true)
      expect(result.output).toContain("where the call was judged")
      expect(result.output).not.toContain("MARK secret")
    }))

  it("the note is one line, none when nothing was left out", () => {
    expect(skippedNote(new Map())).toBeUndefined()
    expect(skippedNote(new Map([["the agent's data directory", 1]]))).toBe(
      "[Skipped 1 entry the agent may not read without a person naming it: the agent's data directory (1).]"
    )
  })
})
