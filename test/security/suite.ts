import { afterAll, describe, it } from "@effect/vitest"
import type { SecurityCase } from "./cases.js"
import { removeFixtures } from "./fixture.js"
import { runCase } from "./run-case.js"

/** Registers a table of cases, one test each, run in process on real time (shell commands need it). */
export const securityCases = (title: string, cases: ReadonlyArray<SecurityCase>) => {
  const names = new Set<string>()
  for (const c of cases) {
    if (names.has(c.name)) throw new Error(`${title}: two cases are named "${c.name}"`)
    names.add(c.name)
  }
  describe(title, () => {
    afterAll(removeFixtures)
    for (const c of cases) it.live(c.name, () => runCase(c))
  })
}
