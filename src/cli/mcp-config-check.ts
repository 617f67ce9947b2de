import * as Effect from "effect/Effect"
import { configFiles, readConfigFile } from "../layers/tools/mcp-config.js"
import { stderr } from "./io.js"

/**
 * One line on stderr for each MCP configuration file that cannot be used: which file, what is
 * wrong with it, and that its servers are left out. The session goes on without them (its
 * log records the same as an `mcp.notice`).
 */
export const reportMalformedMcpConfig = (userConfigDir: string, cwd: string): Effect.Effect<void> =>
  Effect.forEach(
    configFiles({ userConfigDir, cwd }),
    ({ file, origin }) =>
      readConfigFile(file, origin).pipe(
        Effect.matchEffect({
          onSuccess: () => Effect.void,
          onFailure: (error) => stderr(`custom-agent: ${error.file}: ${error.problem} (its MCP servers are left out)\n`)
        })
      ),
    { discard: true }
  )
