import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { isAbsolute } from "node:path"
import type { PermissionStoreError } from "../../services/PermissionEngine.js"
import type { PreparedCall } from "../../services/ToolRouter.js"
import { isWithin } from "../tools/workspace-paths.js"
import { loadStoreFile, saveStoreFile } from "./json-store.js"
import { glob, rulePath } from "./rule-basics.js"
import type { CallPaths } from "./rule-set.js"
import { prefixesCover, shellPrefixes } from "./shell-rules.js"

/**
 * An answer a person gave "for the session" or "always". It never names a whole tool: a
 * shell answer holds the analysed command prefixes (`git status *`), a file answer the paths
 * or the globs the person picked, any other tool's answer that exact input.
 */
export const RememberedApproval = Schema.Struct({
  workspaceRoot: Schema.String,
  tool: Schema.String,
  decision: Schema.Literal("allow", "deny"),
  commands: Schema.optional(Schema.Array(Schema.String)),
  paths: Schema.optional(Schema.Array(Schema.String)),
  input: Schema.optional(Schema.String),
  createdAt: Schema.String
})
export type RememberedApproval = typeof RememberedApproval.Type

/** Older files may hold entries that name only a tool; they are read and never match. */
const ApprovalsFile = Schema.Struct({ approvals: Schema.Array(RememberedApproval) })

/** JSON with object keys sorted, so the same input always gives the same text. */
export const canonicalJson = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v
  ) ?? "null"

/** What an answer covers, or none when the call holds nothing that can be named safely. */
export const rememberedFor = (
  workspaceRoot: string,
  tool: string,
  call: PreparedCall,
  paths: CallPaths,
  input: unknown,
  decision: "allow" | "deny",
  createdAt: string,
  picked?: ReadonlyArray<string>
): Option.Option<RememberedApproval> => {
  const base = { workspaceRoot, tool, decision, createdAt }
  if (call.shell !== undefined) {
    const commands = shellPrefixes(call.shell)
    return commands === undefined || commands.length === 0 ? Option.none() : Option.some({ ...base, commands: [...commands] })
  }
  if (call.command !== undefined) return Option.none()
  if (call.paths.length > 0) {
    const exact = paths.real.map((p) => rulePath(workspaceRoot, p))
    const chosen = picked !== undefined && picked.length > 0 && coversAll(picked, workspaceRoot, paths) ? [...picked] : exact
    return Option.some({ ...base, paths: chosen })
  }
  return input === undefined ? Option.none() : Option.some({ ...base, input: canonicalJson(input) })
}

/** Every path, where it really lands, is named by a pattern; outside the workspace only by an absolute one. */
const coversAll = (patterns: ReadonlyArray<string>, root: string, paths: CallPaths) =>
  paths.real.every((p) => patterns.some((pattern) => (isWithin(root, p) || isAbsolute(pattern)) && glob(pattern)(rulePath(root, p))))

export const rememberedMatches = (
  entry: RememberedApproval,
  workspaceRoot: string,
  tool: string,
  call: PreparedCall,
  paths: CallPaths,
  input: unknown
): boolean => {
  if (entry.workspaceRoot !== workspaceRoot || entry.tool !== tool) return false
  if (entry.commands !== undefined) return call.shell !== undefined && prefixesCover(entry.commands, call.shell, workspaceRoot)
  if (entry.paths !== undefined) return call.command === undefined && call.paths.length > 0 && coversAll(entry.paths, workspaceRoot, paths)
  if (entry.input !== undefined) return call.command === undefined && call.paths.length === 0 && input !== undefined && canonicalJson(input) === entry.input
  return false
}

export const loadApprovalsFile = (file: string): Effect.Effect<Array<RememberedApproval>, PermissionStoreError> =>
  Effect.map(loadStoreFile(file, ApprovalsFile, "approvals file"), Option.match({ onNone: () => [], onSome: (parsed) => [...parsed.approvals] }))

export const saveApprovalsFile = (file: string, approvals: ReadonlyArray<RememberedApproval>) => saveStoreFile(file, { approvals })
