#!/usr/bin/env node
// Answers --version before loading anything else, so it stays instant.
import { readFileSync } from "node:fs"
import { setFlagsFromString } from "node:v8"

const args = process.argv.slice(2)
const packageJson = () => JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"))
if (args.length === 1 && (args[0] === "--version" || args[0] === "-v")) {
  process.stdout.write(`${packageJson().version}\n`)
} else {
  // The interactive session's first frame, drawn while the bundle loads (src/cli/early-frame.ts).
  // A command's name never starts with "-": only then is the command line looked at.
  let early
  const maybeInteractive = (args[0] ?? "-").startsWith("-") && process.stdin.isTTY === true && process.stdout.isTTY === true
  const { isInteractiveArgv } = maybeInteractive ? await import("../dist/cli/interactive/entry-argv.js") : { isInteractiveArgv: () => false }
  const interactive = isInteractiveArgv(args)
  if (interactive) {
    const { drawEarlyFrame } = await import("../dist/cli/early-frame.js")
    early = drawEarlyFrame({
      version: packageJson().version,
      cwd: process.cwd(),
      stdin: process.stdin,
      stdout: process.stdout,
      env: process.env,
      interrupt: () => process.kill(process.pid, "SIGINT"),
      onExit: (erase) => process.once("exit", erase)
    })
  }
  // Before the bundle loads: the heap setting shapes start-up too (src/cli/v8-flags.ts).
  const { v8FlagsFor } = await import("../dist/cli/v8-flags.js")
  for (const flag of v8FlagsFor(args, process.versions.v8, interactive)) setFlagsFromString(flag)
  const { runMain } = await import("../dist/bundle/cli.js")
  runMain(process.argv, early)
}
