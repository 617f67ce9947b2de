import { expect } from "@effect/vitest"
import { closeSync, openSync, writeSync } from "node:fs"
import { join } from "node:path"
import type { AgentEvent } from "../../src/domain/events.js"
import { eventsOf } from "../support/events.js"
import { allowed, readFile, type SecurityCase } from "./cases.js"
import type { Fixture } from "./fixture.js"
import { securityCases } from "./suite.js"

/**
 * Found by an attacker's pass: `read_file` of a text file whose one line is longer than a
 * JavaScript string may be (about 512 MiB) ended the agent's process with "Invalid string
 * length" (and `serve` with it, for every session): the streaming reader built whole lines.
 * Git stores such a file in about a megabyte, so a cloned repository can ship it; reads in
 * the workspace need no approval. Without the fix this case's process dies.
 */

const LINE_MIB = 600

const writeOneLine = (fx: Fixture) => {
  const fd = openSync(join(fx.ws, "oneline.txt"), "w")
  const chunk = Buffer.alloc(1024 * 1024, "a")
  try {
    for (let i = 0; i < LINE_MIB; i++) writeSync(fd, chunk)
    writeSync(fd, "\nsecond line\n")
  } finally {
    closeSync(fd)
  }
}

const shownCut = (_fx: Fixture, events: ReadonlyArray<AgentEvent>) => {
  const outputs = eventsOf(events, "tool.completed").map((e) => e.payload)
  expect(outputs.map((o) => o.isError)).toEqual([false])
  const output = outputs.map((o) => o.output).join("\n")
  expect(output).toContain(`… [${LINE_MIB * 1024 * 1024 - 2000} more characters]`)
  expect(output).toContain("second line")
}

const cases: ReadonlyArray<SecurityCase> = [
  {
    name: `a text file whose one line is ${LINE_MIB} MiB: read_file shows its start and the next line`,
    setup: writeOneLine,
    calls: [readFile("oneline.txt")],
    expect: allowed(shownCut, ["default"])
  }
]

securityCases("no line of a file is held whole", cases)
