import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import { chmodSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import * as CommandExecutor from "@effect/platform/CommandExecutor"
import type * as GitCheckpoints from "../../../src/layers/checkpoints/layer.js"
import { openRepository } from "../../../src/layers/checkpoints/repository.js"
import { watchWorkspace } from "../../../src/layers/checkpoints/watch.js"
import { tempDir } from "../../support/mcp-fixtures.js"
import { checkpointsIn, platform, write } from "./support.js"

/** A `git` that logs its subcommand (the first argument after the `-c` settings) before running the real one. */
const loggingGit = (home: string) => {
  const log = join(home, "git-calls.log")
  const script = join(home, "logging-git")
  writeFileSync(
    script,
    `#!/bin/sh
for a in "$@"; do case "$a" in -c) skip=1 ;; *) if [ -n "$skip" ]; then skip=; else echo "$a" >> '${log}'; break; fi ;; esac; done
exec git "$@"
`,
    { mode: 0o755 }
  )
  writeFileSync(log, "")
  return { script, calls: () => readFileSync(log, "utf8").split("\n").filter((line) => line !== "") }
}

/**
 * A scratch workspace whose snapshots go through the logging git, and a second store over it
 * with the watch off (its own data directory) as the reference: each snapshot must give the
 * same tree and name the same changes as a full read does.
 */
const watchedScratch = (options: Partial<GitCheckpoints.CheckpointsOptions> = {}) =>
  Effect.gen(function* () {
    const home = yield* tempDir("checkpoints-watch-")
    const workspace = join(home, "ws")
    mkdirSync(workspace)
    const git = loggingGit(home)
    const checkpoints = yield* checkpointsIn(join(home, "data"), { git: git.script, ...options })
    const reference = yield* checkpointsIn(join(home, "reference"), { watch: false })
    /** Snapshots with both stores and expects them to agree; gives the git subcommands the watched one ran. */
    const snapshotSees = Effect.gen(function* () {
      const before = git.calls().length
      const snapshot = yield* checkpoints.snapshot(workspace)
      const calls = git.calls().slice(before)
      const expected = yield* reference.snapshot(workspace)
      expect({ treeId: snapshot.treeId, changed: snapshot.changed, notKept: snapshot.notKept }).toEqual({
        treeId: expected.treeId,
        changed: expected.changed,
        notKept: expected.notKept
      })
      return calls
    })
    return { workspace, checkpoints, reference, snapshotSees }
  })

const linux = process.platform === "linux"

describe("checkpoints: the watch that skips reading an unchanged workspace", () => {
  it.scopedLive.skipIf(!linux)("an unchanged workspace is snapshotted without any git process; a change brings the read back", () =>
    Effect.gen(function* () {
      const { workspace, snapshotSees } = yield* watchedScratch()
      write(workspace, "a.txt", "one")
      write(workspace, "src/b.ts", "two")
      yield* snapshotSees
      expect(yield* snapshotSees).toEqual([])
      expect(yield* snapshotSees).toEqual([])
      write(workspace, "src/b.ts", "three")
      expect(yield* snapshotSees).toContain("status")
      expect(yield* snapshotSees).toEqual([])
    })
  )

  it.scopedLive.skipIf(!linux)("changes in new, emptied, moved and re-created folders, and by a child process just before, are all seen", () =>
    Effect.gen(function* () {
      const { workspace, snapshotSees } = yield* watchedScratch()
      write(workspace, "keep.txt", "k")
      yield* snapshotSees
      // A new folder with a file; then a change inside it, which only its own watch can see.
      write(workspace, "new/deep/x.txt", "1")
      yield* snapshotSees
      write(workspace, "new/deep/x.txt", "2")
      yield* snapshotSees
      // An empty folder is nothing to git, but a file created in it later is.
      mkdirSync(join(workspace, "empty"))
      yield* snapshotSees
      write(workspace, "empty/y.txt", "y")
      yield* snapshotSees
      // A moved folder, then a change at its new place.
      renameSync(join(workspace, "new"), join(workspace, "moved"))
      yield* snapshotSees
      write(workspace, "moved/deep/x.txt", "3")
      yield* snapshotSees
      // A folder removed and made again under the same name (its inode number may come back).
      rmSync(join(workspace, "empty"), { recursive: true })
      mkdirSync(join(workspace, "empty"))
      write(workspace, "empty/z.txt", "z")
      yield* snapshotSees
      write(workspace, "empty/z.txt", "zz")
      yield* snapshotSees
      // The execute bit, and a deletion.
      chmodSync(join(workspace, "keep.txt"), 0o755)
      yield* snapshotSees
      rmSync(join(workspace, "moved/deep/x.txt"))
      yield* snapshotSees
      // Written by another process that has just exited, as a shell tool's command would.
      execFileSync("sh", ["-c", "printf changed > keep.txt && mkdir -p sh/made && printf new > sh/made/f"], { cwd: workspace })
      yield* snapshotSees
      expect(yield* snapshotSees).toEqual([])
    })
  )

  it.scopedLive.skipIf(!linux)("folders un-ignored by a .gitignore, by the repository's info/exclude, or by a nested repository losing its .git are watched from then on", () =>
    Effect.gen(function* () {
      const { workspace, snapshotSees } = yield* watchedScratch()
      execFileSync("git", ["init", "--quiet", workspace])
      write(workspace, ".gitignore", "build/\n")
      write(workspace, "build/out.js", "1")
      write(workspace, ".git/info/exclude", "gen/\n")
      write(workspace, "gen/made.txt", "1")
      write(workspace, "nested/.git/HEAD", "ref: refs/heads/main\n")
      write(workspace, "nested/inside.txt", "1")
      yield* snapshotSees
      expect(yield* snapshotSees).toEqual([])

      write(workspace, ".gitignore", "")
      const unignored = yield* snapshotSees
      expect(unignored).toContain("status")
      write(workspace, "build/out.js", "2")
      yield* snapshotSees

      write(workspace, ".git/info/exclude", "")
      yield* snapshotSees
      write(workspace, "gen/made.txt", "2")
      yield* snapshotSees

      rmSync(join(workspace, "nested/.git"), { recursive: true })
      yield* snapshotSees
      write(workspace, "nested/inside.txt", "2")
      yield* snapshotSees
      expect(yield* snapshotSees).toEqual([])
    })
  )

  it.scopedLive("with the watch off, or past its folder limit, every snapshot reads the workspace and sees every change", () =>
    Effect.gen(function* () {
      for (const options of [{ watch: false }, { maxWatchedFolders: 2 }]) {
        const { workspace, snapshotSees } = yield* watchedScratch(options)
        write(workspace, "a/1.txt", "1")
        write(workspace, "b/2.txt", "2")
        write(workspace, "c/3.txt", "3")
        yield* snapshotSees
        expect(yield* snapshotSees).toEqual(["status"])
        write(workspace, "c/3.txt", "changed")
        expect(yield* snapshotSees).toContain("status")
      }
    })
  )

  it.scopedLive.skipIf(!linux)("after a restore or a drift check, the next snapshot reads the workspace again", () =>
    Effect.gen(function* () {
      const { workspace, checkpoints, reference, snapshotSees } = yield* watchedScratch()
      write(workspace, "a.txt", "one")
      yield* snapshotSees
      const first = yield* checkpoints.snapshot(workspace)
      write(workspace, "a.txt", "two")
      yield* snapshotSees
      expect(yield* checkpoints.drift(workspace, first.treeId)).toEqual(["a.txt"])
      expect(yield* snapshotSees).toEqual(["status"])
      yield* checkpoints.restore(workspace, first.treeId)
      const afterRestore = yield* checkpoints.snapshot(workspace)
      expect(afterRestore.treeId).toBe(first.treeId)
      yield* reference.snapshot(workspace)
      expect(yield* snapshotSees).toEqual([])
    })
  )

  it.scopedLive.skipIf(!linux)("a change made just before the question counts, even while its event still waits in the kernel's queue", () =>
    Effect.gen(function* () {
      const home = yield* tempDir("checkpoints-watch-")
      const workspace = join(home, "ws")
      write(workspace, "f.txt", "start")
      const executor = yield* Effect.provide(CommandExecutor.CommandExecutor, platform)
      const repository = yield* openRepository(executor, { dataDir: join(home, "data"), git: "git", callTimeout: "1 minute", stopped: () => Effect.void }, realpathSync(workspace))
      const watch = yield* watchWorkspace(repository, { enabled: true, maxFolders: 100 })
      yield* watch.arm
      expect(yield* watch.quiet).toBe(true)
      for (let i = 0; i < 20; i++) {
        // No turn of the event loop between the write and the question: only the barrier gets its event read.
        writeFileSync(join(workspace, "f.txt"), String(i))
        expect(yield* watch.quiet).toBe(false)
        yield* watch.arm
        expect(yield* watch.quiet).toBe(true)
      }
    })
  )
})
