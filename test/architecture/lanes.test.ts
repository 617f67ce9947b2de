import { describe, expect, it } from "@effect/vitest"
import picomatch from "picomatch"
import { readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"
import { slowLane } from "../lanes.js"

const root = join(import.meta.dirname, "..", "..")

const testFiles = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return testFiles(path)
    return entry.name.endsWith(".test.ts") ? [relative(root, path)] : []
  })

/** The usual ways a test starts a process, a browser or a terminal: each belongs in the slow lane. */
const slowMarkers: ReadonlyArray<readonly [string, RegExp]> = [
  ["the built CLI (runCli)", /\brunCli\(/],
  ["the ACP agent (startAcp)", /\bstartAcp\(/],
  ["a server (startServer)", /\bstartServer\(/],
  ["a terminal (runOnTerminal)", /\brunOnTerminal\(/],
  ["a browser (browserTestKit)", /\bbrowserTestKit\(/],
  ["a pseudo-terminal (node-pty)", /@lydell\/node-pty/]
]

describe("the test lanes", () => {
  const isSlow = picomatch([...slowLane])
  const files = testFiles(join(root, "test"))

  it("no fast-lane test starts the CLI, the ACP agent, a browser or a pseudo-terminal", () => {
    const misplaced = files.flatMap((file) => {
      if (isSlow(file)) return []
      const text = readFileSync(join(root, file), "utf8")
      return slowMarkers.flatMap(([what, marker]) => (marker.test(text) ? [`${file}: ${what}`] : []))
    })
    expect(misplaced).toEqual([])
  })

  it("every slow-lane entry names a test that exists", () => {
    const unmatched = slowLane.filter((entry) => !files.some((file) => picomatch.isMatch(file, entry)))
    expect(unmatched).toEqual([])
  })
})
