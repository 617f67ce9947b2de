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

/** Sets the given flags at run time, then keeps objects long enough to reach the old generation and drops them in turn; prints the heap's peak size. */
const oldGenerationProbe = `
import v8 from "node:v8"
for (const flag of process.argv.slice(2)) v8.setFlagsFromString(flag)
let peak = 0
let kept = []
for (let round = 0; round < 40; round++) {
  for (let i = 0; i < 20000; i++) kept.push({ i, text: "item " + i + round })
  if (kept.length > 200000) kept = kept.slice(100000)
  peak = Math.max(peak, v8.getHeapStatistics().total_heap_size)
}
process.stdout.write(String(peak))
`

/**
 * Sets the given flags at run time, then calls a small function until TurboFan has optimized
 * it; prints how many calls that took. The loop that calls it is never optimized itself, so it
 * neither inlines the function nor tiers up in its place.
 */
const tierUpProbe = `
import v8 from "node:v8"
for (const flag of process.argv.slice(2)) v8.setFlagsFromString(flag)
v8.setFlagsFromString("--allow-natives-syntax")
v8.setFlagsFromString("--no-concurrent-recompilation")
const status = new Function("f", "return %GetOptimizationStatus(f)")
const work = new Function("n", "return (n * 7) % 13 + (n >> 2)")
const drive = new Function("work", "status", "let calls = 0; while (calls < 1000000 && (status(work) & 16) === 0) work(calls++); return calls")
new Function("f", "%NeverOptimizeFunction(f)")(drive)
process.stdout.write(String(drive(work, status)))
`

/**
 * V8's background threads (baseline compiling, GC) make tier-up counts vary from run to run;
 * on one thread they are the same every run. Only the probe's harness runs single-threaded:
 * the flags under test are still set at run time, as the launcher sets them.
 */
const SINGLE_THREADED: ReadonlyArray<string> = ["--single-threaded"]

const runProbe = (source: string, flags: ReadonlyArray<string>, harness: ReadonlyArray<string> = []) => {
  const script = join(temps.dir("v8-flags-"), "probe.mjs")
  writeFileSync(script, source)
  const result = spawnSync(process.execPath, [...harness, script, ...flags], { encoding: "utf8" })
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
    expect(v8FlagsFor([], NODE_22_V8, true)).toEqual(["--liftoff-only", "--semi-space-growth-factor=1", "--heap-growing-percent=35"])
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

  it("the interactive session's heap grows by a third between full collections: a heap churning through kept objects peaks at about half", () => {
    const flags = v8FlagsFor([], process.versions.v8, true)
    const paced = runProbe(oldGenerationProbe, flags, [])
    const unpaced = runProbe(oldGenerationProbe, flags.filter((flag) => !flag.startsWith("--heap-growing-percent")), [])
    expect(paced.stderr).toBe("")
    expect([paced.code, unpaced.code]).toEqual([0, 0])
    expect(paced.value).toBeGreaterThan(0)
    expect(paced.value).toBeLessThanOrEqual(unpaced.value * 0.7)
  })

  it.runIf(process.versions.v8.startsWith("11.3."))("on Node 20, a function reaches TurboFan after about four times as many calls", () => {
    const harness = SINGLE_THREADED
    const tuned = runProbe(tierUpProbe, v8FlagsFor(["run"], process.versions.v8), harness)
    const untuned = runProbe(tierUpProbe, [], harness)
    expect(tuned.stderr).toBe("")
    expect([tuned.code, untuned.code]).toEqual([0, 0])
    expect(untuned.value).toBeGreaterThan(0)
    expect(untuned.value).toBeLessThan(1000000)
    // The budget is four times V8's default; on one thread the ratio is that, run after run.
    expect(tuned.value).toBeGreaterThanOrEqual(untuned.value * 3.5)
    expect(runProbe(tierUpProbe, [], harness).value).toBe(untuned.value)
  })

  it("an unknown flag would show on stderr (the check above can fail)", () => {
    expect(probe(["--no-such-v8-flag"]).stderr).toContain("--no-such-v8-flag")
  })
})
