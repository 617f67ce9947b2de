import * as Effect from "effect/Effect"
import { messageOf } from "../domain/cause-message.js"
import type { ProjectTrust } from "../domain/permissions.js"
import type { PermissionEngineShape } from "../services/PermissionEngine.js"
import { stderr } from "./io.js"


/** The note for a project whose MCP servers will not start because its configuration is not trusted; none when nothing is skipped. */
export const untrustedMcpNote = (trust: ProjectTrust): string | undefined => {
  const servers = trust.mcpServers ?? []
  if (trust.trusted || servers.length === 0) return undefined
  const lines = servers.map((server) => `  ${server}\n`).join("")
  return `custom-agent: the project's MCP servers are skipped, not started, because its configuration is not trusted (custom-agent trust to review it):\n${lines}`
}

/**
 * Says on stderr which of the project's MCP servers this run leaves out because the project
 * is not trusted (the session's log records each as a "skipped" `mcp.notice` too).
 */
export const reportUntrustedMcpServers = (permissions: PermissionEngineShape, workspaceRoot: string): Effect.Effect<void> =>
  permissions.projectTrust(workspaceRoot).pipe(
    Effect.matchEffect({
      onSuccess: (trust) => {
        const note = untrustedMcpNote(trust)
        return note === undefined ? Effect.void : stderr(note)
      },
      onFailure: (error) => stderr(`custom-agent: the project's trust cannot be read (${messageOf(error)}); its MCP servers are not started\n`)
    })
  )
