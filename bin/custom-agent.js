#!/usr/bin/env node
// Answers --version before loading anything else, so it stays instant.
import { readFileSync } from "node:fs"

const args = process.argv.slice(2)
if (args.length === 1 && (args[0] === "--version" || args[0] === "-v")) {
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"))
  process.stdout.write(`${pkg.version}\n`)
} else {
  const { runMain } = await import("../dist/bundle/cli.js")
  runMain(process.argv)
}
