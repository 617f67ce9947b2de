import { afterAll, describe, expect, it } from "@effect/vitest"
import { mkdirSync, rmSync, utimesSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { beginBuild, finishBuild, OUTPUTS, staleReason } from "../../scripts/freshness.mjs"
import { makeTemp } from "../support/temp-dirs.js"

const temps = makeTemp()
afterAll(temps.cleanup)

const put = (root: string, file: string, secondsAgo: number) => {
  const path = join(root, file)
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, "x")
  const when = new Date(Date.now() - secondsAgo * 1000)
  utimesSync(path, when, when)
}

/** A checkout whose sources were last changed a minute ago, built from them. */
const builtCheckout = () => {
  const root = temps.dir("freshness-")
  for (const file of ["src/cli/main.ts", "web/src/app.tsx", "package.json", "tsconfig.json"]) put(root, file, 60)
  beginBuild(root)
  for (const output of OUTPUTS) put(root, output, 0)
  finishBuild(root)
  return root
}

describe("npm start and npm test rebuild only when a source changed since the last build", () => {
  it("never built, or a build that did not finish: stale", () => {
    const root = temps.dir("freshness-")
    put(root, "src/a.ts", 60)
    expect(staleReason(root)).toBe("no finished build")
    beginBuild(root)
    expect(staleReason(root)).toBe("no finished build")
  })

  it("built from the sources as they are: fresh", () => {
    expect(staleReason(builtCheckout())).toBeUndefined()
  })

  it("a source, a web file or package.json changed after the build: stale, naming it", () => {
    for (const file of ["src/cli/main.ts", "web/src/app.tsx", "package.json", "src/new/file.ts"]) {
      const root = builtCheckout()
      put(root, file, -5)
      expect(staleReason(root)).toBe(`${file} changed since the last build`)
    }
  })

  it("a file saved while the build ran counts as changed: the stamp keeps the moment the build began", () => {
    const root = temps.dir("freshness-")
    beginBuild(root)
    put(root, "src/a.ts", -1)
    for (const output of OUTPUTS) put(root, output, -2)
    finishBuild(root)
    expect(staleReason(root)).toBe("src/a.ts changed since the last build")
  })

  it("an output gone: stale", () => {
    const root = builtCheckout()
    const missing = OUTPUTS[0] ?? ""
    writeFileSync(join(root, "unrelated.txt"), "")
    put(root, "README.md", -5)
    expect(staleReason(root)).toBeUndefined()
    rmSync(join(root, missing))
    expect(staleReason(root)).toBe(`${missing} is missing`)
  })
})
