import * as Effect from "effect/Effect"
import type { McpError, McpHubShape } from "../services/McpHub.js"

/**
 * A message with the text of each attached resource after it (resources are served by the
 * session's MCP servers, read once, before the message is admitted).
 */
export const withAttachments = (
  hub: McpHubShape,
  session: { readonly sessionId: string; readonly cwd: string },
  content: string,
  uris: ReadonlyArray<string>
): Effect.Effect<string, McpError> =>
  Effect.gen(function* () {
    if (uris.length === 0) return content
    const resources = yield* Effect.forEach(uris, (uri) => hub.readResource(session.sessionId, uri, session.cwd))
    const attached = resources.map(
      (r) => `<resource uri="${r.uri}"${r.mimeType === undefined ? "" : ` type="${r.mimeType}"`}>\n${r.text}\n</resource>`
    )
    return [content, ...attached].join("\n\n")
  })
