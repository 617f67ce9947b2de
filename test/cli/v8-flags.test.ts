import { afterAll, describe, expect, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { v8FlagsFor } from "../../src/cli/v8-flags.js"
import { makeTemp } from "../support/temp-dirs.js"

const temps = makeTemp()
afterAll(temps.cleanup)

/** Sets the given flags at run time, then allocates objects that survive a while; prints the young generation's size. */
const youngGenerationProbe = `
import v8 from "node:v8"
for (const flag of process.argv.slice(2)) v8.setFlagsFromString(flag)
const kept = []
for (let i = 0; i < 400000; i++) {
  kept.push({ i, text: "item " + i })
  if (kept.length > 100000) kept.splice(0, 50000)
}
const young = v8.getHeapSpaceStatistics().find((space) => space.space_name === "new_space")
process.stdout.write(String(young === undefined ? -1 : young.space_size))
`

/**
 * Sets the given flags at run time, then calls a small function until TurboFan has optimized
 * it; prints how many calls that took. Compiling on the main thread makes the count exact.
 */
const tierUpProbe = `
import v8 from "node:v8"
for (const flag of process.argv.slice(2)) v8.setFlagsFromString(flag)
v8.setFlagsFromString("--allow-natives-syntax")
v8.setFlagsFromString("--no-concurrent-recompilation")
const status = new Function("f", "return %GetOptimizationStatus(f)")
const work = new Function("n", "return (n * 7) % 13 + (n >> 2)")
const OPTIMIZED = 16
let calls = 0
while (calls < 1000000 && (status(work) & OPTIMIZED) === 0) work(calls++)
process.stdout.write(String(calls))
`

const runProbe = (source: string, flags: ReadonlyArray<string>) => {
  const script = join(temps.dir("v8-flags-"), "probe.mjs")
  writeFileSync(script, source)
  const result = spawnSync(process.execPath, [script, ...flags], { encoding: "utf8" })
  return { code: result.status, value: Number(result.stdout), stderr: result.stderr }
}

const probe = (flags: ReadonlyArray<string>) => runProbe(youngGenerationProbe, flags)

const NODE_20_V8 = "11.3.244.8-node.38"
const NODE_22_V8 = "12.4.254.21-node.57"

describe("v8FlagsFor (the launcher's run-time V8 settings)", () => {
  it("short commands keep the young generation small and, on Node 20, tier up later; serve and acp keep V8's defaults", () => {
    for (const args of [["run", "hi"], ["sessions", "list"], [], ["--help"]]) {
      expect(v8FlagsFor(args, NODE_20_V8)).toEqual(["--liftoff-only", "--semi-space-growth-factor=1", "--interrupt-budget=270336"])
      expect(v8FlagsFor(args, NODE_22_V8)).toEqual(["--liftoff-only", "--semi-space-growth-factor=1"])
    }
    for (const version of [NODE_20_V8, NODE_22_V8]) {
      expect(v8FlagsFor(["serve", "--port", "0"], version)).toEqual(["--liftoff-only"])
      expect(v8FlagsFor(["acp"], version)).toEqual(["--liftoff-only"])
    }
  })

  it("this Node knows every flag, and they take effect when set at run time", () => {
    const flags = v8FlagsFor(["run"], process.versions.v8)
    const tuned = probe(flags)
    const untuned = probe([])
    expect(tuned.stderr).toBe("")
    expect(tuned.code).toBe(0)
    expect(untuned.code).toBe(0)
    // Untuned, V8 grows the young generation to many MiB under this load; tuned, it stays at its start size.
    expect(untuned.value).toBeGreaterThanOrEqual(8 * 1024 * 1024)
    expect(tuned.value).toBeLessThanOrEqual(untuned.value / 4)
  })

  it.runIf(process.versions.v8.startsWith("11.3."))("on Node 20, a function reaches TurboFan after about four times as many calls", () => {
    // One untuned run now and then takes twice its usual calls (V8's tiering of the probe's
    // own loop varies): compare medians of five runs each.
    const medianOf = (runs: ReadonlyArray<{ readonly value: number }>) => [...runs.map((r) => r.value)].sort((a, b) => a - b)[2] ?? 0
    const tuned = Array.from({ length: 5 }, () => runProbe(tierUpProbe, v8FlagsFor(["run"], process.versions.v8)))
    const untuned = Array.from({ length: 5 }, () => runProbe(tierUpProbe, []))
    expect(tuned.map((r) => r.stderr)).toEqual(["", "", "", "", ""])
    expect(untuned.map((r) => r.code)).toEqual([0, 0, 0, 0, 0])
    expect(medianOf(untuned)).toBeGreaterThan(0)
    expect(medianOf(untuned)).toBeLessThan(1000000)
    expect(medianOf(tuned)).toBeGreaterThanOrEqual(medianOf(untuned) * 2)
  })

  it("an unknown flag would show on stderr (the check above can fail)", () => {
    expect(probe(["--no-such-v8-flag"]).stderr).toContain("--no-such-v8-flag")
  })
})
