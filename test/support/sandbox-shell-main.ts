/**
 * One shell tool call in the real sandbox (`on`), in a process of its own, for tests that start
 * the agent as a launcher would, with descriptors of its own left open:
 *   node --import tsx test/support/sandbox-shell-main.ts WORKSPACE CONFIG_DIR DATA_DIR COMMAND
 * Prints the tool result as JSON on stdout; a failure is one line on stderr and exit code 1.
 */
import { Effect } from "effect"
import * as SandboxLayer from "../../src/layers/sandbox/layer.js"
import { makeShellTool } from "../../src/layers/tools/shell.js"
import { run } from "../layers/tools/workspace-fixture.js"

const [workspace, configDir, dataDir, command] = process.argv.slice(2)
if (workspace === undefined || configDir === undefined || dataDir === undefined || command === undefined) {
  process.stderr.write("usage: sandbox-shell-main.ts WORKSPACE CONFIG_DIR DATA_DIR COMMAND\n")
  process.exit(2)
}

Effect.gen(function* () {
  const sandbox = yield* SandboxLayer.make({ mode: "on", configDir, dataDir })
  const result = yield* run(makeShellTool(sandbox), { command }, workspace)
  process.stdout.write(JSON.stringify({ output: result.output, isError: result.isError }))
})
  .pipe(Effect.scoped, Effect.runPromise)
  .catch((error: unknown) => {
    process.stderr.write(`${String(error)}\n`)
    process.exitCode = 1
  })
