import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { join } from "node:path"

/**
 * `npm ci` refuses a lock file that leaves out a package some locked package depends on, even an
 * optional one for another platform (a dependency can list platform builds the registry lacks;
 * `npm install` then writes a lock without them and CI's clean install fails before any test).
 * This reads the lock as npm ci does: each dependency must resolve to an entry, looked up from the
 * dependent's folder outward.
 */

interface LockedPackage {
  readonly dependencies?: Record<string, string>
  readonly optionalDependencies?: Record<string, string>
  readonly devDependencies?: Record<string, string>
}

const root = join(import.meta.dirname, "..", "..")
const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")) as {
  readonly packages: Record<string, LockedPackage>
}

/** Where npm looks for `name` as needed by the package at `from`: its own node_modules, then each parent's. */
const candidates = (from: string, name: string): ReadonlyArray<string> => {
  const found: Array<string> = []
  let base = from
  for (;;) {
    found.push(base === "" ? `node_modules/${name}` : `${base}/node_modules/${name}`)
    if (base === "") return found
    const cut = base.lastIndexOf("/node_modules/")
    base = cut === -1 ? "" : base.slice(0, cut)
  }
}

describe("package-lock.json", () => {
  it("holds an entry for every dependency of every locked package, optional ones included", () => {
    const missing = Object.entries(lock.packages).flatMap(([path, entry]) => {
      const wanted = {
        ...entry.dependencies,
        ...entry.optionalDependencies,
        ...(path === "" ? entry.devDependencies : {})
      }
      return Object.keys(wanted)
        .filter((name) => !candidates(path, name).some((candidate) => candidate in lock.packages))
        .map((name) => `${path === "" ? "(root)" : path} needs ${name}`)
    })
    expect(missing).toEqual([])
  })
})
