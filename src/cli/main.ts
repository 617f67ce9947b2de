import { Command, ValidationError } from "@effect/cli"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeTerminal from "@effect/platform-node/NodeTerminal"
import type { Teardown } from "@effect/platform/Runtime"
import * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { packageVersion } from "../app/package-root.js"
import { checkArgv } from "./argv-check.js"
import { commandName, describeCommand } from "./command-tree.js"
import { acpCommand } from "./commands/acp.js"
import { agentsCommand } from "./commands/agents.js"
import { commandsCommand } from "./commands/commands.js"
import { clusterCommand } from "./commands/cluster.js"
import { mcpCommand } from "./commands/mcp.js"
import { memoryCommand } from "./commands/memory.js"
import { runCommand } from "./commands/run.js"
import { schemaCommand } from "./commands/schema.js"
import { attachCommand } from "./commands/attach.js"
import { hostCommand } from "./commands/host.js"
import { serveCommand } from "./commands/serve.js"
import { sessionsCommand } from "./commands/sessions.js"
import { hooksCommand } from "./commands/hooks.js"
import { skillsCommand } from "./commands/skills.js"
import { toolsCommand } from "./commands/tools.js"
import { permissionsCommand } from "./commands/permissions.js"
import { trustCommand } from "./commands/trust.js"
import type { EarlyFrame } from "./early-frame.js"
import { adoptEarlyFrame } from "./early-frame-handle.js"
import { CliError, USAGE_EXIT_CODE, usageMessage } from "./errors.js"
import { renderHelp } from "./help.js"
import { stderr, stdout, useColor, whenFlushed, writeSync } from "./io.js"
import { cliLoggerLayer } from "./logger.js"
import { resumeIdAsSession } from "./interactive/entry-argv.js"
import { interactiveSession } from "./interactive/entry.js"
import { interactiveOptions } from "./interactive/options.js"

export const version = packageVersion()

const commands = [
  runCommand,
  sessionsCommand,
  serveCommand,
  hostCommand,
  attachCommand,
  acpCommand,
  toolsCommand,
  mcpCommand,
  skillsCommand,
  agentsCommand,
  commandsCommand,
  hooksCommand,
  memoryCommand,
  trustCommand,
  permissionsCommand,
  schemaCommand,
  clusterCommand
] as const

const root = Command.make("custom-agent", interactiveOptions, interactiveSession).pipe(
  Command.withDescription("A local-first, event-sourced coding agent. With no command: an interactive session in the current directory, with the options below"),
  Command.withSubcommands(commands)
)

/** The command tree the command line is checked against and help is written from. */
export const program = () =>
  describeCommand(
    root.descriptor,
    [],
    commands.map((command) => command.descriptor)
  )

const cli = Command.run(root, { name: "custom-agent", version })

/**
 * @effect/cli prints its own usage errors and help; ours come first (see `checkArgv`), and the
 * few it still finds (an option's own check, such as `--max-steps 0`) are written by `report`.
 */
const quiet = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Console.consoleWith((console) => Console.withConsole(effect, { ...console, error: () => Effect.void, log: () => Effect.void }))

const messageOf = (error: unknown): string => {
  if (typeof error === "object" && error !== null && "message" in error && typeof error.message === "string" && error.message !== "") {
    return error.message
  }
  return String(error)
}

const usageFailure = (command: string, message: string) =>
  Effect.zipRight(
    stderr(`${command}: ${message}\n(see ${command} --help)\n`),
    Effect.sync(() => {
      process.exitCode = USAGE_EXIT_CODE
    })
  )

/**
 * User mistakes and expected failures are one line on stderr and a non-zero exit (2 for a
 * usage error); only a defect (a bug) shows its trace.
 */
const report = (command: string) => (cause: Cause.Cause<unknown>) => {
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure)) {
    const error = failure.value
    if (ValidationError.isValidationError(error)) return usageFailure(command, usageMessage(error))
    // A usage error found while the command runs (a token file that is not there) reads as one found before.
    if (error instanceof CliError && error.exitCode === USAGE_EXIT_CODE) return usageFailure(command, error.message)
    return Effect.sync(() => {
      writeSync(process.stderr, `custom-agent: ${messageOf(error)}\n`)
      const code = typeof error === "object" && error !== null && "exitCode" in error && typeof error.exitCode === "number" ? error.exitCode : 1
      process.exitCode = code
    })
  }
  return Effect.sync(() => {
    if (Cause.isInterruptedOnly(cause)) {
      process.exitCode = 130
      return
    }
    writeSync(process.stderr, `custom-agent: internal error (please report it):\n${Cause.pretty(cause)}\n`)
    process.exitCode = 70
  })
}

/** What the CLI library needs, without the rest of NodeContext (workers, subprocesses). */
const cliEnvironment = Layer.mergeAll(NodeFileSystem.layer, NodePath.layer, NodeTerminal.layer)

const helpWidth = () => (process.stdout.isTTY === true ? Math.min(Math.max(process.stdout.columns, 60), 100) : 80)

/** `argv` as Node gives it (runtime, script, then the arguments). */
export const main = (argv: ReadonlyArray<string>) =>
  Effect.suspend(() => {
    const tree = program()
    const given = resumeIdAsSession(
      argv.slice(2),
      tree.subcommands().map((command) => command.path.at(-1) ?? "")
    )
    const checked = checkArgv(tree, given)
    switch (checked._tag) {
      case "Help":
        return stdout(renderHelp(checked.command, { color: useColor(process.stdout), width: helpWidth(), version }))
      case "Version":
        return stdout(`${version}\n`)
      case "Usage":
        return usageFailure(commandName(checked.command), checked.message)
      case "Run":
        return quiet(cli([...argv.slice(0, 2), ...checked.argv])).pipe(Effect.catchAllCause(report(commandName(checked.command))), Effect.provide(cliEnvironment))
    }
  }).pipe(Effect.provide(cliLoggerLayer))

/**
 * Ends the process once stdout and stderr have taken everything written to them. By then the
 * command has finished and closed its resources (the store, MCP servers, sockets); left to
 * itself, Node would first wait for V8's background work and tear the heap down, about 10 ms
 * of every run (docs/performance.md). Writes to a pipe may still be queued: each callback runs
 * after the writes before it, so nothing is cut off.
 */
const exitWhenFlushed: Teardown = (exit) => {
  // A command that ended on its own has set its code (see `report`); one stopped by Ctrl-C or
  // SIGTERM was interrupted, which `report` never sees: the same 130 as every other interruption.
  const fallback = Exit.isSuccess(exit) ? 0 : Cause.isInterruptedOnly(exit.cause) ? 130 : 1
  whenFlushed(() => process.exit(process.exitCode ?? fallback))
}

/** `early`: the interactive session's first frame, when the launcher drew one (`early-frame.ts`). */
export const runMain = (argv: ReadonlyArray<string>, early?: EarlyFrame) => {
  adoptEarlyFrame(early)
  NodeRuntime.runMain(main(argv), { disableErrorReporting: true, disablePrettyLogger: true, teardown: exitWhenFlushed })
}
