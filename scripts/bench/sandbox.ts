import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as SandboxLayer from "../../src/layers/sandbox/layer.js"
import { sandboxOff } from "../../src/layers/sandbox/off.js"
import { LocalFileAccess } from "../../src/layers/tools/local-file-access.js"
import { makeShellTool } from "../../src/layers/tools/shell.js"
import type { SandboxShape } from "../../src/services/Sandbox.js"
import type { Tool } from "../../src/services/ToolRouter.js"
import { median, printMachine, printResults, underBudget } from "./report.js"

/**
 * What the bubblewrap sandbox adds to one shell call (issue 15): the shell tool running `true`
 * in a git workspace, prepared and executed as an allowed call is, with the sandbox and
 * without, interleaved so both see the same machine load. Informational; the aim is 30 ms or
 * less added per call.
 */

const RUNS = 40
const WARMUP = 5
const BUDGET_SECONDS = 0.03

/** Seconds one prepared-and-executed `true` takes. */
const timeCall = (tool: Tool, workspace: string) =>
  Effect.gen(function* () {
    const started = performance.now()
    const call = yield* tool.prepare({ command: "true" }, { sessionId: "bench", toolCallId: "bench", workspaceRoot: workspace, files: LocalFileAccess })
    const result = yield* call.execute
    if (result.isError) return yield* Effect.dieMessage(`\`true\` failed: ${result.output}`)
    return (performance.now() - started) / 1000
  })

const measure = (sandbox: SandboxShape, workspace: string) =>
  Effect.gen(function* () {
    const bare = makeShellTool(sandboxOff)
    const boxed = makeShellTool(sandbox)
    const profile = yield* sandbox.profile(workspace)
    if (profile._tag !== "bwrap") return yield* Effect.dieMessage(`no sandbox here: ${JSON.stringify(profile)}`)
    for (let i = 0; i < WARMUP; i++) {
      yield* timeCall(bare, workspace)
      yield* timeCall(boxed, workspace)
    }
    const without: Array<number> = []
    const within: Array<number> = []
    for (let i = 0; i < RUNS; i++) {
      without.push(yield* timeCall(bare, workspace))
      within.push(yield* timeCall(boxed, workspace))
    }
    return { without: median(without), within: median(within) }
  })

export const run = async () => {
  printMachine("start")
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "bench-sandbox-")))
  try {
    const workspace = path.join(dir, "ws")
    fs.mkdirSync(workspace)
    execFileSync("git", ["init", "-q", workspace])
    const figures = await Effect.runPromise(
      Effect.scoped(
        Effect.flatMap(SandboxLayer.make({ mode: "on", configDir: path.join(dir, "config"), dataDir: path.join(dir, "data") }), (sandbox) =>
          measure(sandbox, workspace)
        )
      )
    )
    const added = figures.within - figures.without
    const show = (s: number) => `${(s * 1000).toFixed(1)} ms`
    console.log(`shell \`true\`, median of ${RUNS} interleaved runs each:`)
    console.log(`  without the sandbox  ${show(figures.without)}`)
    console.log(`  in bubblewrap        ${show(figures.within)}  (${(figures.within / figures.without).toFixed(2)}x)`)
    printResults([underBudget("sandbox: added per call", added, BUDGET_SECONDS, show)])
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
    printMachine("end")
  }
}
