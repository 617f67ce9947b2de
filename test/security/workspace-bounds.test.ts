import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit } from "effect"
import { execFileSync } from "node:child_process"
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { readOptionalJson } from "../../src/layers/optional-json-file.js"
import { makeProjectRules } from "../../src/layers/permission/project-rules.js"
import { PermissionsFileError } from "../../src/layers/permission/rules-file.js"
import { walkBounds } from "../../src/layers/tools/walk-bounds.js"
import { newWalkStats, walkFiles } from "../../src/layers/tools/workspace-walk.js"
import { checkpointsIn } from "../layers/checkpoints/support.js"
import { tempDir } from "../support/mcp-fixtures.js"

/**
 * Issue 30, class 10 (first half) and class 7's `/dev/zero`: whatever a cloned repository
 * plants where the agent reads configuration (a fifo, a link to a device, a huge file), no read
 * hangs or exhausts memory, and no external process the agent waits on runs without a limit.
 * Without the fix each read below blocks forever on the fifo or reads `/dev/zero` until memory
 * runs out; the vitest timeout turns that into a failure.
 */

const linux = process.platform === "linux"

const mkfifo = (path: string) => execFileSync("mkfifo", [path])

/** Every way a workspace can make a configuration path something other than a small regular file. */
const plants = (dir: string) => {
  mkdirSync(dir, { recursive: true })
  const fifo = join(dir, "fifo.json")
  mkfifo(fifo)
  const zero = join(dir, "zero.json")
  symlinkSync("/dev/zero", zero)
  const huge = join(dir, "huge.json")
  writeFileSync(huge, `{"pad":"${"x".repeat(2 * 1024 * 1024)}"}`)
  const folder = join(dir, "folder.json")
  mkdirSync(folder)
  return { fifo, zero, huge, folder }
}

describe("configuration reads are bounded", () => {
  it.scopedLive.skipIf(!linux)("a settings file that is a fifo, a link to /dev/zero, a directory or over the cap is refused at once, with its reason", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("bounds-")
      const { fifo, zero, huge, folder } = plants(dir)
      const problemOf = (file: string) =>
        readOptionalJson(file).pipe(
          Effect.flip,
          Effect.map((problem) => problem.problem)
        )
      expect(yield* problemOf(fifo)).toContain("not a regular file (a fifo)")
      expect(yield* problemOf(zero)).toContain("not a regular file (a device)")
      expect(yield* problemOf(folder)).toContain("not a regular file (a directory)")
      expect(yield* problemOf(huge)).toContain("larger than")
    }), 10_000)

  it.scopedLive.skipIf(!linux)("a project rules file that is a fifo or a link to /dev/zero fails closed instead of hanging the permission check", () =>
    Effect.gen(function* () {
      for (const plant of ["fifo", "zero"] as const) {
        const ws = yield* tempDir("bounds-ws-")
        mkdirSync(join(ws, ".custom-agent"))
        const rules = join(ws, ".custom-agent", "permissions.json")
        if (plant === "fifo") mkfifo(rules)
        else symlinkSync("/dev/zero", rules)
        const loaded = yield* makeProjectRules()(ws)
        expect(loaded).toBeInstanceOf(PermissionsFileError)
      }
    }), 10_000)

  it.scopedLive.skipIf(!linux)("a listing walks past a .gitignore that is a fifo or a link to /dev/zero", () =>
    Effect.gen(function* () {
      const ws = yield* tempDir("bounds-walk-")
      mkdirSync(join(ws, "a"))
      mkdirSync(join(ws, "b"))
      writeFileSync(join(ws, "a", "x.txt"), "x")
      writeFileSync(join(ws, "b", "y.txt"), "y")
      mkfifo(join(ws, ".gitignore"))
      symlinkSync("/dev/zero", join(ws, "b", ".gitignore"))
      const seen = yield* Effect.promise(async () => {
        const found: Array<string> = []
        const bounds = walkBounds([], { absolute: ws, real: ws, display: "." })
        const walk = walkFiles(ws, ws, { signal: new AbortController().signal, maxEntries: 1000, stats: newWalkStats(), bounds })
        for await (const file of walk) found.push(file.absolute.slice(ws.length + 1))
        return found
      })
      expect(seen).toEqual(expect.arrayContaining(["a/x.txt", "b/y.txt"]))
    }), 10_000)
})

describe("git that the agent runs on the host has a time limit", () => {
  /** A checkpoint operation's exit and how long it took. */
  const timed = <A, E>(effect: Effect.Effect<A, E>) =>
    Effect.gen(function* () {
      const started = Date.now()
      const exit = yield* Effect.exit(effect)
      return { exit, ms: Date.now() - started }
    })
  const failureOf = <A, E>(exit: Exit.Exit<A, E>) => {
    expect(Exit.isFailure(exit)).toBe(true)
    return Exit.isFailure(exit) ? Cause.pretty(exit.cause) : ""
  }

  it.scopedLive.skipIf(!linux)("a workspace whose own .gitignore, .gitattributes or .git/info/exclude is a fifo has its checkpoints turned off before git runs, instead of blocking the turn", () =>
    Effect.gen(function* () {
      for (const planted of [".gitignore", ".gitattributes", ".git/info/exclude"]) {
        const home = yield* tempDir("bounds-git-")
        const ws = join(home, "ws")
        mkdirSync(join(ws, ".git", "info"), { recursive: true })
        writeFileSync(join(ws, "a.txt"), "a")
        mkfifo(join(ws, planted))
        // A limit far past the test's: only a refusal before any git call passes.
        const checkpoints = yield* checkpointsIn(join(home, "data"), { callTimeout: "1 minute" })
        // Without the check this waits the minute and the test's own limit fails it.
        const { exit } = yield* timed(checkpoints.snapshot(ws))
        expect(failureOf(exit)).toContain(`the workspace's ${planted} is a fifo`)
      }
    }), 20_000)

  it.scopedLive.skipIf(!linux)("a .gitignore fifo in a subfolder costs one call's time limit per process, not one per checkpoint: every later snapshot, drift and restore there fails at once", () =>
    Effect.gen(function* () {
      const home = yield* tempDir("bounds-git-")
      const ws = join(home, "ws")
      mkdirSync(join(ws, "sub"), { recursive: true })
      writeFileSync(join(ws, "a.txt"), "a")
      writeFileSync(join(ws, "sub", "b.txt"), "b")
      mkfifo(join(ws, "sub", ".gitignore"))
      const limitMs = 3_000
      // The one stopped is the watch's `git ls-files` of ignored folders (the default), else `git status`.
      const checkpoints = yield* checkpointsIn(join(home, "data"), { callTimeout: `${limitMs} millis` })
      const first = yield* timed(checkpoints.snapshot(ws))
      const later = [
        yield* timed(Effect.asVoid(checkpoints.snapshot(ws))),
        yield* timed(Effect.asVoid(checkpoints.drift(ws, "0".repeat(40)))),
        yield* timed(Effect.asVoid(checkpoints.restore(ws, "0".repeat(40))))
      ]
      expect(first.ms).toBeGreaterThanOrEqual(limitMs - 50)
      // Without the breaker each of these waits the full limit again, as every step's checkpoint
      // would, and fails for its own time limit rather than for the breaker.
      expect(failureOf(first.exit)).toMatch(/did not finish within .* checkpoints of this workspace are off until the agent restarts/)
      for (const { exit } of later) expect(failureOf(exit)).toMatch(/are off until the agent restarts: git (ls-files|status) did not finish within/)
    }), 30_000)
})
