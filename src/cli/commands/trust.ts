import { Command, Options } from "@effect/cli"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { resolve } from "node:path"
import { resolveConfigDir, resolveDataDir } from "../../app/locations.js"
import { PermissionEngine } from "../../services/PermissionEngine.js"
import { CliError } from "../errors.js"
import { stdout } from "../io.js"
import * as shared from "../options.js"
import { describeTrust } from "../trust-prompt.js"
import { term } from "../terminal-text.js"
import { permissionsLayer } from "../../app/permissions.js"

const cwd = shared.existingDirectory("cwd").pipe(
  Options.withDescription("The project whose .custom-agent/permissions.json to trust (default: the current directory)"),
  Options.optional
)

const status = Options.boolean("status").pipe(Options.withDescription("Only show whether the file is trusted; change nothing"))

export const trustCommand = Command.make("trust", { cwd, status, dataDir: shared.dataDir }, (args) => {
  const dataDir = resolveDataDir(Option.getOrUndefined(args.dataDir))
  const configDir = resolveConfigDir()
  return Effect.gen(function* () {
    const permissions = yield* PermissionEngine
    const root = resolve(Option.getOrElse(args.cwd, () => process.cwd()))
    const current = yield* permissions.projectTrust(root)
    if (current.sha256 === undefined) {
      return yield* new CliError({
        message: `${root} has no project configuration to trust (.custom-agent/permissions.json, settings.json or mcp.json, or hooks in .claude/settings.json)`
      })
    }
    if (args.status || current.trusted) {
      const state = current.trusted ? `trusted${current.trustedAt === undefined ? "" : ` since ${current.trustedAt}`}` : "not trusted"
      return yield* stdout(term`${describeTrust(current)}\n${state}\n`)
    }
    const trusted = yield* permissions.trustProject(root, current.sha256, "user")
    yield* stdout(term`${describeTrust(trusted)}\ntrusted: its allow rules, settings, hooks and MCP servers apply until a file changes\n`)
  }).pipe(
    Effect.provide(
      permissionsLayer(configDir, dataDir)
    )
  )
}).pipe(
  Command.withDescription(
    "Trust the project's .custom-agent/permissions.json, settings and mcp.json (its hooks, those of .claude/settings.json, and its MCP servers) as they are now: its allow rules, network setting, hooks and MCP servers apply until a file changes (deny and ask rules always do)"
  )
)
