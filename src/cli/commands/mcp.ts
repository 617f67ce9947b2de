import { Command, Options } from "@effect/cli"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { resolve } from "node:path"
import { resolveConfigDir, resolveDataDir } from "../../app/locations.js"
import { permissionsLayer } from "../../app/permissions.js"
import * as SandboxLayer from "../../layers/sandbox/layer.js"
import { type ConfiguredServer, loadConfiguredServers, projectConfigFile, userConfigFile } from "../../layers/tools/mcp-config.js"
import type { McpServerStatus } from "../../services/McpHub.js"
import { PermissionEngine } from "../../services/PermissionEngine.js"
import { CliError } from "../errors.js"
import { stdout } from "../io.js"
import * as shared from "../options.js"

const cwd = shared.existingDirectory("cwd").pipe(
  Options.withDescription("The project whose .custom-agent/mcp.json applies (default: the current directory)"),
  Options.optional
)

const indent = (text: string, prefix: string) => text.split("\n").map((line) => `${prefix}${line}`).join("\n")

/** One server: its name, where it was configured, how it is reached, its state; then its tools. */
const describeServer = (status: McpServerStatus, origin: ConfiguredServer["origin"]): string => {
  const head = `${status.name} (${origin}, ${status.transport}): ${status.state}`
  if (status.state !== "ready") return `${head}${status.message === undefined ? "" : `\n${indent(status.message, "  ")}`}\n`
  const tools = status.tools.length === 0 ? "  (no tools)" : status.tools.map((tool) => `  ${tool}`).join("\n")
  return `${head}, ${status.tools.length} tool${status.tools.length === 1 ? "" : "s"}\n${tools}\n`
}

const transportOf = (server: ConfiguredServer) => ("command" in server.config ? "stdio" : "http")

/** Starts the servers as a session would (stdio ones in the sandbox, a project's only once trusted) and waits until each is ready, failed or skipped. */
const startAll = (args: { readonly sandbox: "auto" | "off" | "on"; readonly sandboxNetwork: boolean }, userConfigDir: string, dir: string) =>
  Effect.gen(function* () {
    // The MCP client (and its SDK) loads only when there is a server to start.
    const Mcp = yield* Effect.promise(() => import("../../layers/tools/mcp.js"))
    const permissions = yield* PermissionEngine
    return yield* Effect.scoped(
      Effect.gen(function* () {
        // Started as a session would start them: stdio servers in the sandbox.
        const sandbox = yield* SandboxLayer.make({
          mode: args.sandbox,
          network: args.sandboxNetwork,
          configDir: userConfigDir,
          dataDir: resolveDataDir(undefined)
        })
        const hub = yield* Mcp.make({ userConfigDir, sandbox, projectTrust: permissions.projectTrust })
        yield* hub.configureSession("mcp-list", dir, [])
        return yield* hub.status("mcp-list")
      })
    )
  })

const list = Command.make("list", { cwd, sandbox: shared.sandbox, sandboxNetwork: shared.sandboxNetwork }, (args) =>
  Effect.gen(function* () {
    const userConfigDir = resolveConfigDir()
    const dir = resolve(Option.getOrElse(args.cwd, () => process.cwd()))
    const servers = yield* loadConfiguredServers({ userConfigDir, cwd: dir }).pipe(
      Effect.mapError((error) => new CliError({ message: error.message, cause: error }))
    )
    if (servers.length === 0) {
      return yield* stdout(`no MCP servers configured (looked in ${userConfigFile(userConfigDir)} and ${projectConfigFile(dir)})\n`)
    }
    const statuses = servers.every((server) => server.disabled === true)
      ? []
      : yield* startAll(args, userConfigDir, dir).pipe(Effect.provide(permissionsLayer(userConfigDir, resolveDataDir(undefined))))
    yield* stdout(
      servers
        .map((server) => {
          const status = statuses.find((candidate) => candidate.name === server.config.name && candidate.origin === server.origin)
          if (server.disabled === true || status === undefined) return `${server.config.name} (${server.origin}, ${transportOf(server)}): disabled\n`
          return describeServer(status, server.origin)
        })
        .join("")
    )
  })
).pipe(Command.withDescription(
    "Start the configured MCP servers (user and project) and show each one's status and tools; disabled ones are listed as such, and a project's that are not trusted (custom-agent trust) or named like one of yours as skipped"
  ))

export const mcpCommand = Command.make("mcp").pipe(
  Command.withDescription("MCP servers: the tools they add to every session"),
  Command.withSubcommands([list])
)
