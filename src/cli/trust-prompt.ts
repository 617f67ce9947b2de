import * as Effect from "effect/Effect"
import type { ProjectTrust } from "../domain/permissions.js"
import type { PermissionEngineShape } from "../services/PermissionEngine.js"
import { askLine, isYes } from "./ask-line.js"

/** What a person is asked to trust: the file, its hash, and the allow rules it would turn on. */
export const describeTrust = (status: ProjectTrust): string => {
  const allows = status.allowRules.map((rule) => `  allow ${rule.tool}${rule.command === undefined ? "" : ` command "${rule.command}"`}${rule.path === undefined ? "" : ` path "${rule.path}"`}`)
  const network = status.opensNetwork ? ["  the project's settings.json opens the sandbox's network"] : []
  const hooks = (status.hooks ?? []).map((hook) => `  hook ${hook}`)
  const servers = (status.mcpServers ?? []).map((server) => `  mcp server ${server}`)
  return [`${status.file} (sha256 ${status.sha256 ?? "-"})`, ...allows, ...network, ...hooks, ...servers].join("\n")
}

/** Whether trust would change anything: allow rules to turn on, the network to open, hooks to run, MCP servers to start. */
export const widens = (status: ProjectTrust) =>
  status.allowRules.length > 0 || status.opensNetwork || (status.hooks ?? []).length > 0 || (status.mcpServers ?? []).length > 0

/**
 * Before a turn on a terminal: a project whose rules file holds allow rules nobody trusted yet
 * is shown, and the person decides. Trusted: its allow rules apply from now on (until the
 * file changes). Not trusted: only its deny and ask rules apply, as before.
 */
export const promptForTrust = (
  permissions: PermissionEngineShape,
  workspaceRoot: string,
  io: { readonly input: NodeJS.ReadableStream; readonly output: NodeJS.WritableStream }
) =>
  Effect.gen(function* () {
    const status = yield* permissions.projectTrust(workspaceRoot)
    if (status.trusted || !widens(status) || status.sha256 === undefined) return status
    io.output.write(`This project's own configuration widens what the agent may do, and is not trusted yet:\n${describeTrust(status)}\n`)
    const answer = yield* askLine(io.input, io.output, "Trust it? [y/N] ")
    if (!isYes(answer)) {
      io.output.write("Not trusted: only its deny and ask rules apply, the network stays closed, its hooks do not run, its MCP servers do not start (custom-agent trust to change that).\n")
      return status
    }
    return yield* permissions.trustProject(workspaceRoot, status.sha256, "user")
  })
