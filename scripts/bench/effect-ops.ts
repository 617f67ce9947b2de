import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { chainRunner } from "./chain-run.js"
import { repoRoot } from "./processes.js"
import { printMachine } from "./report.js"

/**
 * Effect operations per chain step: the agent-loop chain (N = 20 and 100) run from source
 * with the fiber run loop counted (`effect-ops-cli.ts`), and (ops100 - ops20) / 80. Unlike
 * wall time this does not move with the machine's load, so a change to the per-step path
 * shows its effect in one run. Not part of the default run: `npm run bench -- effect-ops`.
 */

const countingCli = path.join(repoRoot, "scripts", "bench", "effect-ops-cli.ts")

const operationsOf = (stderr: string): number => {
  const found = /^effect operations: (\d+)$/m.exec(stderr)?.[1]
  if (found === undefined) throw new Error(`the counting CLI printed no count:\n${stderr.slice(-2000)}`)
  return Number(found)
}

export const run = async () => {
  printMachine("start")
  const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-effect-ops-"))
  try {
    // The run's cwd is its workspace, so tsx is imported by its resolved location.
    const tsx = fileURLToPath(import.meta.resolve("tsx"))
    const { chainRun } = chainRunner(tempDir, countingCli)
    const counts = new Map<number, number>()
    for (const steps of [20, 100]) {
      const { result } = await chainRun(steps, ["--import", tsx])
      counts.set(steps, operationsOf(result.stderr))
      console.log(`  N = ${String(steps).padEnd(4)} ${operationsOf(result.stderr)} effect operations in the whole run`)
    }
    const perStep = ((counts.get(100) ?? 0) - (counts.get(20) ?? 0)) / 80
    console.log(`per-step effect operations (ops100 - ops20) / 80: ${perStep.toFixed(0)}`)
  } finally {
    fs.rmSync(tempDir, { recursive: true, force: true })
  }
  printMachine("end")
}
