import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Logger, LogLevel } from "effect"
import { execFileSync } from "node:child_process"
import { mkdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { blockingRootFile } from "../../../src/layers/checkpoints/breaker.js"
import { tempDir } from "../../support/mcp-fixtures.js"
import { checkpointsIn, write } from "./support.js"

const linux = process.platform === "linux"

const mkfifo = (path: string) => execFileSync("mkfifo", [path])

/** A failed exit's message, to say which failure it was. */
const failureOf = <A, E>(exit: Exit.Exit<A, E>): string => (Exit.isFailure(exit) ? Cause.pretty(exit.cause) : "no failure")

/** Warnings logged while `effect` runs, as text. */
const withWarnings = <A, E, R>(effect: (warnings: ReadonlyArray<string>) => Effect.Effect<A, E, R>) => {
  const warnings: Array<string> = []
  const logger = Logger.make(({ logLevel, message }) => {
    if (logLevel === LogLevel.Warning) warnings.push(Array.isArray(message) ? message.join(" ") : String(message))
  })
  return Effect.provide(effect(warnings), Logger.replace(Logger.defaultLogger, logger))
}

describe("checkpoints: a workspace that blocks git", () => {
  it.scopedLive.skipIf(!linux)(
    "a call stopped by its time limit turns off only that workspace's checkpoints, for the rest of the process, with one warning; its earlier checkpoints can still be compared",
    () =>
      withWarnings((warnings) =>
        Effect.gen(function* () {
          const home = yield* tempDir("checkpoints-breaker-")
          const hostile = join(home, "hostile")
          const other = join(home, "other")
          write(hostile, "a.txt", "a")
          write(other, "a.txt", "a")
          // idleTimeToLive 0: the workspace is closed between calls, so "off" must outlive its entry in the map.
          const checkpoints = yield* checkpointsIn(join(home, "data"), { callTimeout: "3 seconds", watch: false, idleTimeToLive: 0 })
          const first = yield* checkpoints.snapshot(hostile)
          write(hostile, "a.txt", "a changed")
          const second = yield* checkpoints.snapshot(hostile)

          // Git reads a folder's .gitattributes when it stages a file there: a call other than status blocks this time.
          write(hostile, "sub/b.txt", "b")
          mkfifo(join(hostile, "sub", ".gitattributes"))
          const stopped = yield* Effect.exit(checkpoints.snapshot(hostile))
          expect(failureOf(stopped)).toContain("git update-index did not finish within 3s and was stopped")

          rmSync(join(hostile, "sub", ".gitattributes"))
          const again = [
            Effect.asVoid(checkpoints.snapshot(hostile)),
            Effect.asVoid(checkpoints.drift(hostile, first.treeId)),
            Effect.asVoid(checkpoints.restore(hostile, first.treeId))
          ]
          for (const call of again) {
            expect(failureOf(yield* Effect.exit(call))).toContain(`checkpoints of ${realpathSync(hostile)} are off until the agent restarts: git update-index did not finish`)
          }
          // Comparing two stored trees reads only our repository, never the workspace.
          expect(yield* checkpoints.changedBetween(hostile, first.treeId, second.treeId)).toEqual(["a.txt"])
          expect((yield* checkpoints.snapshot(other)).changed).toEqual([])

          const off = warnings.filter((warning) => warning.includes("are off until the agent restarts"))
          expect(off).toHaveLength(1)
          expect(off[0]).toContain(realpathSync(hostile))
          expect(off[0]).toContain("file changes there cannot be rewound")
        })
      ),
    30_000
  )

  it.scopedLive.skipIf(!linux)("the workspace's own ignore and attribute files are judged by what git opens: a fifo there blocks, a link git does not follow, a device or a regular file does not", () =>
    Effect.gen(function* () {
      const plant = (path: string, make: (file: string) => void) =>
        Effect.gen(function* () {
          const root = yield* tempDir("checkpoints-breaker-")
          mkdirSync(join(root, ".git", "info"), { recursive: true })
          make(join(root, path))
          return blockingRootFile(root)
        })
      const elsewhere = yield* tempDir("checkpoints-breaker-fifo-")
      const fifo = join(elsewhere, "fifo")
      mkfifo(fifo)

      expect(yield* plant(".gitignore", mkfifo)).toBe("the workspace's .gitignore is a fifo, which git would wait on when it reads it")
      expect(yield* plant(".gitattributes", mkfifo)).toContain("the workspace's .gitattributes is a fifo")
      expect(yield* plant(".gitignore", (file) => symlinkSync("/dev/tty", file))).toBeUndefined()
      // Our core.excludesFile is opened following links, as any excludes file is.
      expect(yield* plant(".git/info/exclude", (file) => symlinkSync(fifo, file))).toContain("the workspace's .git/info/exclude is a fifo")
      expect(yield* plant(".git/info/exclude", (file) => symlinkSync("/dev/null", file))).toBeUndefined()
      expect(yield* plant(".gitignore", (file) => symlinkSync(fifo, file))).toBeUndefined()
      expect(yield* plant(".gitignore", (file) => writeFileSync(file, "*.log\n"))).toBeUndefined()
      expect(yield* plant(".gitattributes", (file) => mkdirSync(file))).toBeUndefined()
    })
  )
})
