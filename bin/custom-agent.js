#!/usr/bin/env node
// Answers --version before loading anything else, so it stays instant.
import { readFileSync } from "node:fs"
import { setFlagsFromString } from "node:v8"

const args = process.argv.slice(2)
if (args.length === 1 && (args[0] === "--version" || args[0] === "-v")) {
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"))
  process.stdout.write(`${pkg.version}\n`)
} else {
  // Before the bundle loads: the heap setting shapes start-up too (src/cli/v8-flags.ts).
  const { v8FlagsFor } = await import("../dist/cli/v8-flags.js")
  for (const flag of v8FlagsFor(args, process.versions.v8)) setFlagsFromString(flag)
  const { runMain } = await import("../dist/bundle/cli.js")
  runMain(process.argv)
}
