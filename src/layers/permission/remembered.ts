import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { mkdir, rename, writeFile } from "node:fs/promises"
import { dirname } from "node:path"
import { PermissionStoreError } from "../../services/PermissionEngine.js"
import { readOptionalJson } from "../optional-json-file.js"
import type { PreparedCall } from "../../services/ToolRouter.js"
import { normalize } from "./shell-words.js"

/**
 * An answer a person gave "for the session" or "always". It covers exactly what was asked:
 * the same command line, the same outside paths, or, for calls inside the workspace without
 * a command, the tool.
 */
export const RememberedApproval = Schema.Struct({
  workspaceRoot: Schema.String,
  tool: Schema.String,
  decision: Schema.Literal("allow", "deny"),
  command: Schema.optional(Schema.String),
  paths: Schema.optional(Schema.Array(Schema.String)),
  createdAt: Schema.String
})
export type RememberedApproval = typeof RememberedApproval.Type

const ApprovalsFile = Schema.Struct({ approvals: Schema.Array(RememberedApproval) })

export const rememberedFor = (
  workspaceRoot: string,
  tool: string,
  call: PreparedCall,
  decision: "allow" | "deny",
  createdAt: string
): RememberedApproval => ({
  workspaceRoot,
  tool,
  decision,
  createdAt,
  ...(call.command === undefined ? {} : { command: normalize(call.command) }),
  ...(call.outsideWorkspace ? { paths: [...call.paths] } : {})
})

export const rememberedMatches = (entry: RememberedApproval, workspaceRoot: string, tool: string, call: PreparedCall) => {
  if (entry.workspaceRoot !== workspaceRoot || entry.tool !== tool) return false
  if (entry.command !== undefined && (call.command === undefined || normalize(call.command) !== entry.command)) return false
  if (entry.paths !== undefined) return call.paths.every((p) => entry.paths?.includes(p) === true)
  return !call.outsideWorkspace
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error))

export const loadApprovalsFile = (file: string): Effect.Effect<Array<RememberedApproval>, PermissionStoreError> =>
  readOptionalJson(file).pipe(
    Effect.mapError(({ problem }) => new PermissionStoreError({ message: `${file}: ${problem}` })),
    Effect.flatMap(
      Option.match({
        onNone: () => Effect.succeed([]),
        onSome: (json) =>
          Schema.decodeUnknown(ApprovalsFile)(json).pipe(
            Effect.map((parsed) => [...parsed.approvals]),
            Effect.mapError((error) => new PermissionStoreError({ message: `${file}: malformed approvals file (${error.message})` }))
          )
      })
    )
  )

/** Writes the whole file to a temporary name, then renames it: a crash never leaves half a file. */
export const saveApprovalsFile = (file: string, approvals: ReadonlyArray<RememberedApproval>) =>
  Effect.tryPromise({
    try: async () => {
      await mkdir(dirname(file), { recursive: true })
      const temporary = `${file}.${process.pid}.tmp`
      await writeFile(temporary, `${JSON.stringify({ approvals }, null, 2)}\n`, "utf8")
      await rename(temporary, file)
    },
    catch: (error) => new PermissionStoreError({ message: `${file}: cannot be written (${describe(error)})` })
  })
