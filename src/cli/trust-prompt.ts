import * as Effect from "effect/Effect"
import type { ProjectTrust } from "../domain/permissions.js"
import { askLine, isYes } from "./ask-line.js"
import { writeSync } from "./io.js"
import { joinText, sanitizeInline as one, type TerminalText, term } from "./terminal-text.js"

/**
 * What a person is asked to trust: the file, its hash, and the allow rules it would turn on.
 * Each rule and hook is one line whatever it holds (its newlines and controls shown visibly), so
 * the listing shows every command that would run and nothing a file chose to draw over it.
 */
export const describeTrust = (status: ProjectTrust): TerminalText => {
  const allows = status.allowRules.map(
    (rule) => term`  allow ${one(rule.tool)}${rule.command === undefined ? "" : term` command "${one(rule.command)}"`}${rule.path === undefined ? "" : term` path "${one(rule.path)}"`}`
  )
  const network = status.opensNetwork ? ["  the project's settings.json opens the sandbox's network"] : []
  const hooks = (status.hooks ?? []).map((hook) => term`  hook ${one(hook)}`)
  const servers = (status.mcpServers ?? []).map((server) => term`  mcp server ${one(server)}`)
  // The files that are there: a project with only `.claude/settings.json` is not shown a rules file it lacks.
  const files = status.files === undefined || status.files.length === 0 ? [status.file] : status.files
  return joinText([term`${joinText(files.map(one), ", ")} (sha256 ${status.sha256 ?? "-"})`, ...allows, ...network, ...hooks, ...servers], "\n")
}

/** Whether trust would change anything: allow rules to turn on, the network to open, hooks to run, MCP servers to start. */
export const widens = (status: ProjectTrust) =>
  status.allowRules.length > 0 || status.opensNetwork || (status.hooks ?? []).length > 0 || (status.mcpServers ?? []).length > 0

/** Where a workspace's trust is read and given: the PermissionEngine in this process, or a server's API. */
export interface TrustAccess<E> {
  readonly projectTrust: (workspaceRoot: string) => Effect.Effect<ProjectTrust, E>
  readonly trustProject: (workspaceRoot: string, sha256: string, by: string) => Effect.Effect<ProjectTrust, E>
}

/**
 * Before a turn on a terminal: a project whose rules file holds allow rules nobody trusted yet
 * is shown, and the person decides. Trusted: its allow rules apply from now on (until the
 * file changes). Not trusted: only its deny and ask rules apply, as before.
 */
export const promptForTrust = <E>(
  permissions: TrustAccess<E>,
  workspaceRoot: string,
  io: { readonly input: NodeJS.ReadableStream; readonly output: NodeJS.WritableStream }
) =>
  Effect.gen(function* () {
    const status = yield* permissions.projectTrust(workspaceRoot)
    if (status.trusted || !widens(status) || status.sha256 === undefined) return status
    writeSync(io.output, term`This project's own configuration widens what the agent may do, and is not trusted yet:\n${describeTrust(status)}\n`)
    const answer = yield* askLine(io.input, io.output, "Trust it? [y/N] ")
    if (!isYes(answer)) {
      writeSync(io.output, "Not trusted: only its deny and ask rules apply, the network stays closed, its hooks do not run, its MCP servers do not start (custom-agent trust to change that).\n")
      return status
    }
    return yield* permissions.trustProject(workspaceRoot, status.sha256, "user")
  })
