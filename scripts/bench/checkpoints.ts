import * as NodeCommandExecutor from "@effect/platform-node/NodeCommandExecutor"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { Effect, Layer, ManagedRuntime } from "effect"
import { execFile, execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { promisify } from "node:util"
import * as GitCheckpoints from "../../src/layers/checkpoints/layer.js"
import { Checkpoints } from "../../src/services/Checkpoints.js"
import { median, printMachine, printResults, underBudget } from "./report.js"

/**
 * What a checkpoint costs a step (issue 19): a 10,000-file workspace (itself a git repository,
 * as most are), a first snapshot, then repeated snapshots of the unchanged tree (with the
 * folder watch, as by default, and with it off, which reads the tree every time) and of the
 * tree with one file changed, and the restore of one changed file, against baselines measured
 * interleaved in the same run: `git status` of the workspace's own repository (what any tool
 * that asks git "what changed" pays), a bare stat walk in this process, and `git --version`
 * (one process start). The aim: a checkpoint of an unchanged tree adds at most a few ms to a step.
 */

const DIRS = 100
const FILES_PER_DIR = 100
const RUNS = 30
const WARMUP = 3
const BUDGET_UNCHANGED_SECONDS = 0.005

const run$ = promisify(execFile)

const percentile = (values: ReadonlyArray<number>, p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0
}

const show = (seconds: number) => `${(seconds * 1000).toFixed(1)} ms`

const timed = async (f: () => Promise<unknown>) => {
  const started = performance.now()
  await f()
  return (performance.now() - started) / 1000
}

const buildTree = (root: string) => {
  for (let d = 0; d < DIRS; d++) {
    const dir = path.join(root, `pkg-${d}`, "src")
    fs.mkdirSync(dir, { recursive: true })
    for (let f = 0; f < FILES_PER_DIR; f++) fs.writeFileSync(path.join(dir, `file-${f}.ts`), `export const value${f} = ${d * FILES_PER_DIR + f}\n`)
  }
}

const statWalk = (dir: string): number => {
  let count = 0
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === ".git") continue
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) count += statWalk(full)
    else {
      fs.lstatSync(full)
      count++
    }
  }
  return count
}

const gitEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" }

export const run = async () => {
  printMachine("start")
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "bench-checkpoints-")))
  const platform = Layer.provide(NodeCommandExecutor.layer, NodeFileSystem.layer)
  const runtime = ManagedRuntime.make(GitCheckpoints.layer({ dataDir: path.join(dir, "data") }).pipe(Layer.provide(platform)))
  const unwatched = ManagedRuntime.make(GitCheckpoints.layer({ dataDir: path.join(dir, "data-unwatched"), watch: false }).pipe(Layer.provide(platform)))
  try {
    const workspace = path.join(dir, "ws")
    buildTree(workspace)
    const git = (...args: Array<string>) => execFileSync("git", ["-C", workspace, ...args], { env: gitEnv, stdio: "ignore" })
    git("init", "-q")
    git("add", "-A")
    git("-c", "user.name=bench", "-c", "user.email=bench@localhost", "commit", "-q", "-m", "tree")
    const snapshot = () => runtime.runPromise(Effect.flatMap(Checkpoints, (checkpoints) => checkpoints.snapshot(workspace)))
    const fullRead = () => unwatched.runPromise(Effect.flatMap(Checkpoints, (checkpoints) => checkpoints.snapshot(workspace)))

    const first = await timed(snapshot)
    console.log(`first snapshot of ${(DIRS * FILES_PER_DIR).toLocaleString("en-US")} files: ${show(first)}`)
    await fullRead()

    const status = () => run$("git", ["-C", workspace, "status", "--porcelain=v2", "-z"], { env: gitEnv })
    const version = () => run$("git", ["--version"], { env: gitEnv })
    const unchanged: Record<"snapshot" | "fullRead" | "status" | "walk" | "version", Array<number>> = { snapshot: [], fullRead: [], status: [], walk: [], version: [] }
    for (let i = 0; i < WARMUP + RUNS; i++) {
      const s = await timed(snapshot)
      const r = await timed(fullRead)
      const g = await timed(status)
      const w = await timed(async () => statWalk(workspace))
      const v = await timed(version)
      if (i < WARMUP) continue
      unchanged.snapshot.push(s)
      unchanged.fullRead.push(r)
      unchanged.status.push(g)
      unchanged.walk.push(w)
      unchanged.version.push(v)
    }

    const oneChanged: Array<number> = []
    for (let i = 0; i < WARMUP + RUNS; i++) {
      fs.appendFileSync(path.join(workspace, `pkg-${i % DIRS}`, "src", "file-0.ts"), `// ${i}\n`)
      const t = await timed(async () => {
        const taken = await snapshot()
        if (taken.changed.length !== 1) throw new Error(`expected one changed path, got ${taken.changed.length}`)
      })
      if (i >= WARMUP) oneChanged.push(t)
    }

    // A rewind of one file: the file changed, then restored to the last snapshot (which records the change first).
    const restoreOne: Array<number> = []
    const target = path.join(workspace, "pkg-0", "src", "file-1.ts")
    for (let i = 0; i < WARMUP + RUNS; i++) {
      const { treeId } = await snapshot()
      fs.appendFileSync(target, `// ${i}\n`)
      const t = await timed(async () => {
        const restored = await runtime.runPromise(Effect.flatMap(Checkpoints, (checkpoints) => checkpoints.restore(workspace, treeId, ["pkg-0/src/file-1.ts"])))
        if (restored.paths.length !== 1) throw new Error(`expected one restored path, got ${restored.paths.length}`)
      })
      if (i >= WARMUP) restoreOne.push(t)
    }

    const row = (label: string, values: ReadonlyArray<number>) =>
      console.log(
        `  ${label.padEnd(34)} median ${show(median(values)).padStart(9)}  p95 ${show(percentile(values, 95)).padStart(9)}  ` +
          `${(median(values) / median(unchanged.status)).toFixed(2)}x git status`
      )
    console.log(`${RUNS} runs each (after ${WARMUP} warm-up), interleaved:`)
    row("snapshot, unchanged tree", unchanged.snapshot)
    row("the same with the watch off", unchanged.fullRead)
    row("snapshot, one file changed", oneChanged)
    row("restore of one changed file", restoreOne)
    row("baseline: git status (own repo)", unchanged.status)
    row("baseline: stat walk in-process", unchanged.walk)
    row("baseline: git --version", unchanged.version)
    printResults([underBudget("unchanged tree: snapshot", median(unchanged.snapshot), BUDGET_UNCHANGED_SECONDS, show)])
  } finally {
    await runtime.dispose()
    await unwatched.dispose()
    fs.rmSync(dir, { recursive: true, force: true })
    printMachine("end")
  }
}
