import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Fiber, Option } from "effect"
import { execFileSync } from "node:child_process"
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, realpathSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { repositoryDir } from "../../../src/layers/checkpoints/repository.js"
import { CheckpointError } from "../../../src/services/Checkpoints.js"
import { tempDir } from "../../support/mcp-fixtures.js"
import { checkpointsIn, filesOf, scratch, storedPaths, write } from "./support.js"

const userGit = (cwd: string, ...args: Array<string>) =>
  execFileSync("git", ["-c", "user.name=u", "-c", "user.email=u@localhost", ...args], {
    cwd,
    env: { PATH: process.env["PATH"] ?? "", GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" }
  })

/** Every file under a folder with its bytes and mtime, to show nothing in it was written. */
const fingerprint = (root: string): Record<string, string> =>
  Object.fromEntries(Object.entries(filesOf(root)).map(([path, value]) => [path, `${value}@${lstatSync(join(root, path)).mtimeMs}`]))

describe("checkpoints: what is kept", () => {
  it.scopedLive(".gitignore'd files (nested .gitignore and the repository's info/exclude too) are neither stored nor touched by a restore", () =>
    Effect.gen(function* () {
      const { workspace, dataDir, checkpoints } = yield* scratch()
      userGit(workspace, "init", "-q")
      write(workspace, ".gitignore", "*.log\nbuild/\n")
      write(workspace, "pkg/.gitignore", "generated.ts\n")
      write(workspace, ".git/info/exclude", "secret.env\n")
      write(workspace, "a.txt", "a")
      write(workspace, "x.log", "log 1")
      write(workspace, "build/out.js", "out 1")
      write(workspace, "pkg/generated.ts", "gen 1")
      write(workspace, "pkg/kept.ts", "kept")
      write(workspace, "secret.env", "TOKEN=1")
      const first = yield* checkpoints.snapshot(workspace)
      expect(storedPaths(dataDir, workspace, first.treeId)).toEqual([".gitignore", "a.txt", "pkg/.gitignore", "pkg/kept.ts"])

      write(workspace, "a.txt", "a changed")
      write(workspace, "x.log", "log 2")
      write(workspace, "build/out.js", "out 2")
      write(workspace, "build/new.js", "new")
      write(workspace, "pkg/generated.ts", "gen 2")
      expect(yield* checkpoints.drift(workspace, first.treeId)).toEqual(["a.txt"])
      const restored = yield* checkpoints.restore(workspace, first.treeId)
      expect(restored.paths).toEqual(["a.txt"])
      expect(readFileSync(join(workspace, "a.txt"), "utf8")).toBe("a")
      expect(readFileSync(join(workspace, "x.log"), "utf8")).toBe("log 2")
      expect(readFileSync(join(workspace, "build/out.js"), "utf8")).toBe("out 2")
      expect(readFileSync(join(workspace, "build/new.js"), "utf8")).toBe("new")
      expect(readFileSync(join(workspace, "pkg/generated.ts"), "utf8")).toBe("gen 2")
      expect(readFileSync(join(workspace, "secret.env"), "utf8")).toBe("TOKEN=1")
    })
  )

  it.scopedLive("a file over the per-file cap is named in notKept, not stored, and never touched by a restore", () =>
    Effect.gen(function* () {
      const { workspace, dataDir, checkpoints } = yield* scratch({ maxFileBytes: 1000 })
      write(workspace, "small.txt", "s")
      write(workspace, "grows.txt", "g")
      const first = yield* checkpoints.snapshot(workspace)

      write(workspace, "big.bin", Buffer.alloc(2000, 1))
      write(workspace, "grows.txt", "g".repeat(1500))
      const second = yield* checkpoints.snapshot(workspace)
      expect(second.notKept).toEqual([
        { path: "big.bin", reason: "file_too_large", bytes: 2000 },
        { path: "grows.txt", reason: "file_too_large", bytes: 1500 }
      ])
      // The file that grew past the cap leaves the tree: that is a change.
      expect(second.changed).toEqual(["grows.txt"])
      expect(storedPaths(dataDir, workspace, second.treeId)).toEqual(["small.txt"])
      expect(yield* checkpoints.drift(workspace, second.treeId)).toEqual([])

      write(workspace, "small.txt", "changed")
      const restored = yield* checkpoints.restore(workspace, second.treeId)
      expect(restored.paths).toEqual(["small.txt"])
      expect(readFileSync(join(workspace, "big.bin"))).toEqual(Buffer.alloc(2000, 1))
      expect(readFileSync(join(workspace, "grows.txt"), "utf8")).toBe("g".repeat(1500))
      // Back to the first snapshot, where grows.txt was small and kept: that version is asked for, so it is written.
      const back = yield* checkpoints.restore(workspace, first.treeId)
      expect(back.paths).toEqual(["grows.txt"])
      expect(readFileSync(join(workspace, "grows.txt"), "utf8")).toBe("g")
      expect(existsSync(join(workspace, "big.bin"))).toBe(true)
    })
  )

  it.scopedLive("files past the per-snapshot cap are left out in path order and kept by a later snapshot", () =>
    Effect.gen(function* () {
      const { workspace, checkpoints } = yield* scratch({ maxSnapshotBytes: 1500 })
      for (const name of ["a", "b", "c"]) write(workspace, name, name.repeat(600))
      const first = yield* checkpoints.snapshot(workspace)
      expect(first.notKept).toEqual([{ path: "c", reason: "snapshot_too_large", bytes: 600 }])
      const second = yield* checkpoints.snapshot(workspace)
      expect(second.notKept).toEqual([])
      expect(second.changed).toEqual(["c"])
    })
  )
})

describe("checkpoints: snapshots, drift and restore", () => {
  it.scopedLive("an unchanged workspace gives the same tree, its parent, and no changes; a new layer over the same data finds the parent", () =>
    Effect.gen(function* () {
      const { workspace, dataDir, checkpoints } = yield* scratch()
      write(workspace, "a", "1")
      const first = yield* checkpoints.snapshot(workspace)
      expect(first).toEqual({ treeId: first.treeId, changed: [], notKept: [] })
      expect(yield* checkpoints.snapshot(workspace)).toEqual({ treeId: first.treeId, parent: first.treeId, changed: [], notKept: [] })
      write(workspace, "a", "2")
      const again = yield* checkpointsIn(dataDir)
      const second = yield* again.snapshot(workspace)
      expect(second.parent).toBe(first.treeId)
      expect(second.changed).toEqual(["a"])
      expect(yield* again.changedBetween(workspace, first.treeId, second.treeId)).toEqual(["a"])
      expect(statSync(repositoryDir(dataDir, workspace)).mode & 0o777).toBe(0o700)
      expect(statSync(join(dataDir, "checkpoints")).mode & 0o777).toBe(0o700)
    })
  )

  it.scopedLive("drift names exactly the added, changed, removed and re-moded paths", () =>
    Effect.gen(function* () {
      const { workspace, checkpoints } = yield* scratch({ maxFileBytes: 100 })
      for (const name of ["changed", "removed", "moded", "same", "dir/inner"]) write(workspace, name, name)
      write(workspace, ".gitignore", "*.log\n")
      const first = yield* checkpoints.snapshot(workspace)
      expect(yield* checkpoints.drift(workspace, first.treeId)).toEqual([])
      write(workspace, "changed", "other")
      rmSync(join(workspace, "removed"))
      chmodSync(join(workspace, "moded"), 0o755)
      write(workspace, "added", "new")
      write(workspace, "dir/inner", "dir/inner")
      write(workspace, "ignored.log", "not judged")
      write(workspace, "huge", "x".repeat(200))
      expect(yield* checkpoints.drift(workspace, first.treeId)).toEqual(["added", "changed", "moded", "removed"])
      // Drift records no checkpoint: the next snapshot still compares with the first.
      const second = yield* checkpoints.snapshot(workspace)
      expect(second.parent).toBe(first.treeId)
      expect(second.changed).toEqual(["added", "changed", "moded", "removed"])
      expect(yield* checkpoints.drift(workspace, second.treeId)).toEqual([])
    })
  )

  it.scopedLive("a single file, or a folder, can be restored alone", () =>
    Effect.gen(function* () {
      const { workspace, checkpoints } = yield* scratch()
      write(workspace, "a", "a1")
      write(workspace, "b", "b1")
      write(workspace, "dir/c", "c1")
      write(workspace, "dir/sub/d", "d1")
      const first = yield* checkpoints.snapshot(workspace)
      write(workspace, "a", "a2")
      write(workspace, "b", "b2")
      rmSync(join(workspace, "dir/sub"), { recursive: true })
      write(workspace, "dir/e", "e2")
      expect((yield* checkpoints.restore(workspace, first.treeId, ["a"])).paths).toEqual(["a"])
      expect(readFileSync(join(workspace, "a"), "utf8")).toBe("a1")
      expect(readFileSync(join(workspace, "b"), "utf8")).toBe("b2")
      expect((yield* checkpoints.restore(workspace, first.treeId, ["./dir/"])).paths).toEqual(["dir/e", "dir/sub/d"])
      expect(filesOf(workspace)).toEqual({ a: "-:YTE=", b: "-:YjI=", "dir/c": "-:YzE=", "dir/sub/d": "-:ZDE=" })
      expect((yield* checkpoints.restore(workspace, first.treeId, ["nothing/here"])).paths).toEqual([])
    })
  )

  it.scopedLive("a restore removes the folders it empties and leaves folders that still hold ignored files", () =>
    Effect.gen(function* () {
      const { workspace, checkpoints } = yield* scratch()
      write(workspace, ".gitignore", "*.log\n")
      const first = yield* checkpoints.snapshot(workspace)
      write(workspace, "deep/er/file", "x")
      write(workspace, "kept/file", "x")
      write(workspace, "kept/debug.log", "ignored")
      yield* checkpoints.restore(workspace, first.treeId)
      expect(existsSync(join(workspace, "deep"))).toBe(false)
      expect(readFileSync(join(workspace, "kept/debug.log"), "utf8")).toBe("ignored")
      expect(existsSync(join(workspace, "kept/file"))).toBe(false)
    })
  )

  it.scopedLive("symlinks are stored and restored as symlinks; a folder replaced by a symlink is not written through", () =>
    Effect.gen(function* () {
      const { home, workspace, checkpoints } = yield* scratch()
      const outside = join(home, "outside")
      mkdirSync(outside)
      write(workspace, "target.txt", "t")
      symlinkSync("target.txt", join(workspace, "link"))
      write(workspace, "dir/f", "inside")
      const first = yield* checkpoints.snapshot(workspace)
      rmSync(join(workspace, "link"))
      write(workspace, "link", "now a file")
      rmSync(join(workspace, "dir"), { recursive: true })
      symlinkSync(outside, join(workspace, "dir"))
      yield* checkpoints.restore(workspace, first.treeId)
      expect(readlinkSync(join(workspace, "link"))).toBe("target.txt")
      expect(lstatSync(join(workspace, "dir")).isDirectory()).toBe(true)
      expect(readFileSync(join(workspace, "dir/f"), "utf8")).toBe("inside")
      expect(filesOf(outside)).toEqual({})
    })
  )

  it.scopedLive("names with spaces, line breaks, unicode and pathspec magic round-trip", () =>
    Effect.gen(function* () {
      const { workspace, checkpoints } = yield* scratch()
      const names = ["sp ace.txt", "new\nline", "ünï/ñ 名.txt", "tab\there", "*star", ":(glob)x", "back\\slash", "\"quoted\""]
      for (const name of names) write(workspace, name, name)
      const first = yield* checkpoints.snapshot(workspace)
      for (const name of names) write(workspace, name, `${name} changed`)
      const second = yield* checkpoints.snapshot(workspace)
      expect(second.changed).toEqual([...names].sort())
      expect(yield* checkpoints.drift(workspace, first.treeId)).toEqual([...names].sort())
      expect((yield* checkpoints.restore(workspace, first.treeId, [":(glob)x"])).paths).toEqual([":(glob)x"])
      expect((yield* checkpoints.restore(workspace, first.treeId, ["*star"])).paths).toEqual(["*star"])
      expect(readFileSync(join(workspace, "sp ace.txt"), "utf8")).toBe("sp ace.txt changed")
      yield* checkpoints.restore(workspace, first.treeId)
      for (const name of names) expect(readFileSync(join(workspace, name), "utf8")).toBe(name)
    })
  )

  it.scopedLive("content is stored byte for byte whatever the workspace's .gitattributes ask", () =>
    Effect.gen(function* () {
      const { workspace, checkpoints } = yield* scratch()
      write(workspace, ".gitattributes", "* text eol=crlf\n*.txt ident filter=lfs\n")
      write(workspace, "lf.txt", "a\nb\n$Id$\n")
      write(workspace, "crlf.txt", "a\r\nb\r\n")
      const before = filesOf(workspace)
      const first = yield* checkpoints.snapshot(workspace)
      write(workspace, "lf.txt", "x")
      write(workspace, "crlf.txt", "y")
      yield* checkpoints.restore(workspace, first.treeId)
      expect(filesOf(workspace)).toEqual(before)
    })
  )

  it.scopedLive("concurrent snapshots, drifts and restores of one workspace run one at a time and agree", () =>
    Effect.gen(function* () {
      const { workspace, checkpoints } = yield* scratch()
      for (let i = 0; i < 20; i++) write(workspace, `f${i}`, `${i}`)
      const first = yield* checkpoints.snapshot(workspace)
      write(workspace, "f0", "changed")
      const results = yield* Effect.all(
        [checkpoints.snapshot(workspace), checkpoints.snapshot(workspace), checkpoints.drift(workspace, first.treeId), checkpoints.snapshot(workspace)],
        { concurrency: "unbounded" }
      )
      const trees = new Set([results[0].treeId, results[1].treeId, results[3].treeId])
      expect(trees.size).toBe(1)
      expect(results[2]).toEqual(["f0"])
      expect([results[0], results[1], results[3]].map((s) => s.changed).flat()).toEqual(["f0"])
    })
  )
})

describe("checkpoints: where the workspace is", () => {
  it.scopedLive("inside a git repository: the user's .git (HEAD, index, everything) is untouched and never stored", () =>
    Effect.gen(function* () {
      const { workspace, dataDir, checkpoints } = yield* scratch()
      write(workspace, "tracked.txt", "v1")
      userGit(workspace, "init", "-q")
      userGit(workspace, "add", "tracked.txt")
      userGit(workspace, "commit", "-q", "-m", "one")
      write(workspace, "tracked.txt", "v2")
      userGit(workspace, "add", "tracked.txt")
      write(workspace, "untracked.txt", "u")
      const gitBefore = fingerprint(join(workspace, ".git"))
      const headBefore = readFileSync(join(workspace, ".git/HEAD"))
      const indexBefore = readFileSync(join(workspace, ".git/index"))

      const first = yield* checkpoints.snapshot(workspace)
      expect(storedPaths(dataDir, workspace, first.treeId)).toEqual(["tracked.txt", "untracked.txt"])
      write(workspace, "tracked.txt", "v3")
      rmSync(join(workspace, "untracked.txt"))
      yield* checkpoints.snapshot(workspace)
      expect(yield* checkpoints.drift(workspace, first.treeId)).toEqual(["tracked.txt", "untracked.txt"])
      yield* checkpoints.restore(workspace, first.treeId)
      expect(readFileSync(join(workspace, "tracked.txt"), "utf8")).toBe("v2")

      expect(readFileSync(join(workspace, ".git/HEAD"))).toEqual(headBefore)
      expect(readFileSync(join(workspace, ".git/index"))).toEqual(indexBefore)
      expect(fingerprint(join(workspace, ".git"))).toEqual(gitBefore)
      expect(userGit(workspace, "status", "--porcelain").toString()).toBe("M  tracked.txt\n?? untracked.txt\n")
    })
  )

  it.scopedLive("a subfolder of a repository, and a folder that is no repository at all", () =>
    Effect.gen(function* () {
      const { workspace, checkpoints } = yield* scratch()
      userGit(workspace, "init", "-q")
      const sub = join(workspace, "packages/app")
      write(sub, "index.ts", "1")
      const plain = yield* tempDir("checkpoints-plain-")
      write(plain, "notes.md", "1")
      for (const root of [sub, plain]) {
        const first = yield* checkpoints.snapshot(root)
        const name = root === sub ? "index.ts" : "notes.md"
        write(root, name, "2")
        expect((yield* checkpoints.snapshot(root)).changed).toEqual([name])
        yield* checkpoints.restore(root, first.treeId)
        expect(readFileSync(join(root, name), "utf8")).toBe("1")
      }
      expect(existsSync(join(plain, ".git"))).toBe(false)
    })
  )

  it.scopedLive("a nested repository is left out; the data directory inside the workspace is never stored", () =>
    Effect.gen(function* () {
      const home = yield* tempDir("checkpoints-inside-")
      const checkpoints = yield* checkpointsIn(join(home, ".agent data"))
      write(home, "a.txt", "a")
      write(home, "vendor/lib/x.c", "x")
      userGit(join(home, "vendor/lib"), "init", "-q")
      const first = yield* checkpoints.snapshot(home)
      write(home, "b.txt", "b")
      const second = yield* checkpoints.snapshot(home)
      expect(second.changed).toEqual(["b.txt"])
      expect(yield* checkpoints.drift(home, first.treeId)).toEqual(["b.txt"])
      expect(existsSync(join(home, ".agent data", "checkpoints"))).toBe(true)
      expect(yield* checkpoints.changedBetween(home, first.treeId, second.treeId)).toEqual(["b.txt"])
    })
  )
})

describe("checkpoints: failures and interruption", () => {
  const failure = <A>(effect: Effect.Effect<A, CheckpointError>) =>
    Effect.map(Effect.exit(effect), (exit) => {
      expect(Exit.isFailure(exit)).toBe(true)
      if (Exit.isSuccess(exit)) return ""
      const error = Option.getOrUndefined(Cause.failureOption(exit.cause))
      expect(error).toBeInstanceOf(CheckpointError)
      return error?.message ?? ""
    })

  it.scopedLive("a data directory that cannot be created, a missing git, a missing workspace", () =>
    Effect.gen(function* () {
      const home = yield* tempDir("checkpoints-bad-")
      writeFileSync(join(home, "file"), "")
      write(home, "ws/a", "a")
      const badData = yield* checkpointsIn(join(home, "file", "data"))
      expect(yield* failure(badData.snapshot(join(home, "ws")))).toMatch(/cannot create/)
      const noGit = yield* checkpointsIn(join(home, "data"), { git: join(home, "no-such-git") })
      expect(yield* failure(noGit.snapshot(join(home, "ws")))).toMatch(/could not run/)
      // A failed open is not kept: the same service works once the cause is gone.
      rmSync(join(home, "file"))
      expect((yield* badData.snapshot(join(home, "ws"))).treeId).toMatch(/^[0-9a-f]{40}$/)
      expect(yield* failure(badData.snapshot(join(home, "missing")))).toMatch(/no workspace/)
    })
  )

  it.scopedLive("tree ids that are not ids or not stored, and paths outside the workspace", () =>
    Effect.gen(function* () {
      const { workspace, checkpoints } = yield* scratch()
      write(workspace, "a", "a")
      const { treeId } = yield* checkpoints.snapshot(workspace)
      expect(yield* failure(checkpoints.restore(workspace, "--output=/tmp/x"))).toMatch(/not a tree id/)
      expect(yield* failure(checkpoints.drift(workspace, "0".repeat(40)))).toMatch(/diff-tree failed/)
      expect(yield* failure(checkpoints.changedBetween(workspace, treeId, "HEAD"))).toMatch(/not a tree id/)
      for (const path of ["../a", "/etc/passwd", "a/../../b", ""]) {
        expect(yield* failure(checkpoints.restore(workspace, treeId, [path]))).toMatch(/not a path inside the workspace/)
      }
    })
  )

  it.scopedLive("a lock file left by a git call that never finished is removed once it is a minute old; a younger one fails the call, naming it", () =>
    Effect.gen(function* () {
      const { workspace, dataDir, checkpoints } = yield* scratch()
      write(workspace, "a", "a")
      yield* checkpoints.snapshot(workspace)
      write(workspace, "b", "b")
      const lock = join(repositoryDir(dataDir, realpathSync(workspace)), "index.lock")
      writeFileSync(lock, "")
      expect(yield* failure(checkpoints.snapshot(workspace))).toMatch(/index\.lock exists: another process is using the checkpoint repository \(if none is, delete that file\)/)
      expect(existsSync(lock)).toBe(true)
      const twoMinutesAgo = new Date(Date.now() - 120_000)
      utimesSync(lock, twoMinutesAgo, twoMinutesAgo)
      expect((yield* checkpoints.snapshot(workspace)).changed).toEqual(["b"])
      expect(existsSync(lock)).toBe(false)
    })
  )

  for (const hangsAt of ["init", "status"]) {
    it.scopedLive(`an interrupted call kills its git process (git hanging at ${hangsAt})`, () =>
      Effect.gen(function* () {
        const home = yield* tempDir("checkpoints-interrupt-")
        write(home, "ws/a", "a")
        const pidFile = join(home, "git.pid")
        // The real git, except that one subcommand says who it is and never answers.
        const script = `#!/bin/sh\nfor arg in "$@"; do [ "$arg" = ${hangsAt} ] && { echo $$ > '${pidFile}'; exec sleep 60; }; done\nexec git "$@"\n`
        write(home, "slow-git", script)
        chmodSync(join(home, "slow-git"), 0o755)
        const checkpoints = yield* checkpointsIn(join(home, "data"), { git: join(home, "slow-git") })
        const fiber = yield* Effect.fork(checkpoints.snapshot(join(home, "ws")))
        while (!existsSync(pidFile) || readFileSync(pidFile, "utf8").trim() === "") yield* Effect.sleep("10 millis")
        const pid = Number(readFileSync(pidFile, "utf8").trim())
        yield* Fiber.interrupt(fiber)
        const alive = () => {
          try {
            process.kill(pid, 0)
            return true
          } catch {
            return false
          }
        }
        // Gone at once, or within moments if the kill raced its start (then nothing waits for the exit).
        for (let waited = 0; alive() && waited < 2000; waited += 20) yield* Effect.sleep("20 millis")
        expect(alive()).toBe(false)
      })
    )
  }

  it.scopedLive.skipIf(process.getuid?.() === 0)("an unreadable file is left out and named instead of failing the snapshot (root reads anything)", () =>
    Effect.gen(function* () {
      const { workspace, dataDir, checkpoints } = yield* scratch()
      write(workspace, "a", "a")
      write(workspace, "locked", "secret")
      chmodSync(join(workspace, "locked"), 0o000)
      const snapshot = yield* checkpoints.snapshot(workspace)
      expect(storedPaths(dataDir, workspace, snapshot.treeId)).toEqual(["a"])
      expect(snapshot.notKept).toEqual([{ path: "locked", reason: "unreadable", bytes: 6 }])
    })
  )
})
