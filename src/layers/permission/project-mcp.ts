import type { TrustPart } from "./trust-hash.js"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { parseJson } from "../optional-json-file.js"
import { projectServerLines } from "../tools/mcp-admission.js"
import { parseConfig, projectConfigFile } from "../tools/mcp-config.js"

/** The project's MCP configuration, trusted with its rules and settings: a repository's servers start only once trusted. */
export const projectMcpFile = (workspaceRoot: string) => projectConfigFile(workspaceRoot)

/**
 * The servers a project's `mcp.json` text would start, one line each (what trust shows and
 * covers); a malformed file starts none (the MCP hub reports it).
 */
export const projectMcpServers = (workspaceRoot: string, text: string | undefined): Effect.Effect<ReadonlyArray<string>> =>
  text === undefined
    ? Effect.succeed([])
    : parseJson(text).pipe(
        Effect.map((json) => Either.match(parseConfig(projectMcpFile(workspaceRoot), json, "project"), { onLeft: () => [], onRight: projectServerLines })),
        Effect.orElseSucceed(() => [])
      )

/** Its part of the project's hash: nothing when there is no file, so the trust of a project without one is unchanged. */
export const projectMcpHashPart = (text: string | undefined): ReadonlyArray<TrustPart> => (text === undefined ? [] : [["mcp.json", text]])
