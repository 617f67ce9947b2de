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

const probe = (flags: ReadonlyArray<string>) => {
  const script = join(temps.dir("v8-flags-"), "probe.mjs")
  writeFileSync(script, youngGenerationProbe)
  const result = spawnSync(process.execPath, [script, ...flags], { encoding: "utf8" })
  return { code: result.status, bytes: Number(result.stdout), stderr: result.stderr }
}

describe("v8FlagsFor (the launcher's run-time V8 settings)", () => {
  it("short commands keep the young generation small; serve and acp keep V8's default heap", () => {
    for (const args of [["run", "hi"], ["sessions", "list"], [], ["--help"]]) {
      expect(v8FlagsFor(args)).toEqual(["--liftoff-only", "--semi-space-growth-factor=1"])
    }
    expect(v8FlagsFor(["serve", "--port", "0"])).toEqual(["--liftoff-only"])
    expect(v8FlagsFor(["acp"])).toEqual(["--liftoff-only"])
  })

  it("this Node knows every flag, and they take effect when set at run time", () => {
    const flags = v8FlagsFor(["run"])
    const tuned = probe(flags)
    const untuned = probe([])
    expect(tuned.stderr).toBe("")
    expect(tuned.code).toBe(0)
    expect(untuned.code).toBe(0)
    // Untuned, V8 grows the young generation to many MiB under this load; tuned, it stays at its start size.
    expect(untuned.bytes).toBeGreaterThanOrEqual(8 * 1024 * 1024)
    expect(tuned.bytes).toBeLessThanOrEqual(untuned.bytes / 4)
  })

  it("an unknown flag would show on stderr (the check above can fail)", () => {
    expect(probe(["--no-such-v8-flag"]).stderr).toContain("--no-such-v8-flag")
  })
})
