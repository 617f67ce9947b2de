/**
 * `custom-agent mcp ...` on its own, for tests that run the command as a user would:
 *   node --import tsx test/support/mcp-cli-main.ts mcp list --cwd DIR
 * A failure is one line on stderr and exit code 1, as the real CLI reports it.
 */
import { Command, ValidationError } from "@effect/cli"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Effect } from "effect"
import { mcpCommand } from "../../src/cli/commands/mcp.js"

const root = Command.make("custom-agent").pipe(Command.withSubcommands([mcpCommand]))

Command.run(root, { name: "custom-agent", version: "test" })(process.argv).pipe(
  Effect.catchAll((error) =>
    Effect.sync(() => {
      if (!ValidationError.isValidationError(error)) process.stderr.write(`custom-agent: ${error.message}\n`)
      process.exitCode = 1
    })
  ),
  Effect.provide(NodeContext.layer),
  NodeRuntime.runMain({ disablePrettyLogger: true })
)
