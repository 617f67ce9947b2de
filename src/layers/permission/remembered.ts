import { createHash } from "node:crypto"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { isAbsolute } from "node:path"
import { AnswerCover, type PathAccess, RevokedAnswer } from "../../domain/permissions.js"
import type { PermissionStoreError } from "../../services/PermissionEngine.js"
import type { PreparedCall } from "../../services/ToolRouter.js"
import { isWithin } from "../tools/workspace-paths.js"
import { loadStoreFile, saveStoreFile } from "./json-store.js"
import { glob, rulePath } from "./rule-basics.js"
import type { CallPaths } from "./rule-set.js"
import { prefixesCover, prefixesDeny, shellPrefixes } from "./shell-rules.js"

/**
 * An answer a person gave "for the session" or "always". It never names a whole tool: a
 * shell answer holds the analysed command prefixes (`git status *`), a file answer the paths
 * or the globs the person picked among those offered (`lastingChoices`) and how they are
 * touched (so every file tool that touches them that way is covered), another tool's answer
 * that exact input.
 */
export const RememberedApproval = Schema.Struct({
  ...AnswerCover.fields,
  /** Absent in files written before answers could be revoked: then derived from the content (`idOf`). */
  id: Schema.optional(Schema.String),
  workspaceRoot: Schema.String,
  decision: Schema.Literal("allow", "deny"),
  createdAt: Schema.String
})
export type RememberedApproval = typeof RememberedApproval.Type

/** Older files may hold entries that name only a tool; they are read and never match. */
const ApprovalsFile = Schema.Struct({
  approvals: Schema.Array(RememberedApproval),
  /** Every revocation, kept for an audit. */
  revoked: Schema.optional(Schema.Array(RevokedAnswer))
})
export type ApprovalsFile = typeof ApprovalsFile.Type

/** JSON with object keys sorted, so the same input always gives the same text. */
export const canonicalJson = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v
  ) ?? "null"

/** An entry's id: its own, or for an entry written before ids one derived from its content, the same in every process. */
export const idOf = (entry: RememberedApproval): string =>
  entry.id ?? `ans_${createHash("sha256").update(canonicalJson(entry)).digest("hex").slice(0, 16)}`

/**
 * The built-in file tools and how each touches its path. Only these are judged by access;
 * any other tool's path answer holds for that tool alone.
 */
const TOOL_ACCESS: Readonly<Record<string, { readonly access: PathAccess; readonly risk: "read" | "write" }>> = {
  write_file: { access: "write", risk: "write" },
  edit_file: { access: "write", risk: "write" },
  read_file: { access: "read", risk: "read" },
  grep: { access: "read", risk: "read" },
  list_files: { access: "list", risk: "read" }
}

/** How a call touches its paths, when it is a file tool's call as that tool prepares it. */
const callAccess = (tool: string, call: PreparedCall): PathAccess | undefined => {
  const known = TOOL_ACCESS[tool]
  if (known === undefined || call.risk !== known.risk || call.paths.length === 0 || call.command !== undefined || call.shell !== undefined) return undefined
  return known.access
}

/** What an allow of `granted` lets through: a read allow also lists, nothing else crosses. */
const allowReaches = (granted: PathAccess, wanted: PathAccess) => granted === wanted || (granted === "read" && wanted === "list")
const side = (access: PathAccess) => (access === "write" ? "write" : "read")

/** A path as a glob that matches only itself: a file named `*` or `src/**` must not become a wildcard. */
export const literalGlob = (path: string) => path.replace(/[\\*?[\]{}()!@+]/g, (c) => `\\${c}`)

/**
 * What a lasting answer to this call would cover, or none when the call holds nothing that
 * can be named safely (an unreadable line, a line that writes a file or sets variables).
 * Paths are where they really land now, as literal globs: this is what the question shows
 * and what is stored, so a link swapped in after the question changes nothing.
 */
export const coverFor = (workspaceRoot: string, tool: string, call: PreparedCall, paths: CallPaths, input: unknown): Option.Option<AnswerCover> => {
  if (call.shell !== undefined) {
    const commands = shellPrefixes(call.shell)
    return commands === undefined || commands.length === 0 ? Option.none() : Option.some({ tool, commands: [...commands] })
  }
  if (call.command !== undefined) return Option.none()
  if (call.paths.length > 0) {
    const access = callAccess(tool, call)
    const literal = [...new Set(paths.real.map((p) => literalGlob(rulePath(workspaceRoot, p))))]
    return Option.some({ tool, paths: literal, ...(access === undefined ? {} : { access }) })
  }
  return input === undefined ? Option.none() : Option.some({ tool, input: canonicalJson(input) })
}

/** Every real path is named by a pattern; outside the workspace only by an absolute one. */
const coversAll = (patterns: ReadonlyArray<string>, root: string, real: ReadonlyArray<string>) =>
  real.every((p) => patterns.some((pattern) => (isWithin(root, p) || isAbsolute(pattern)) && glob(pattern)(rulePath(root, p))))

export type Match = "yes" | "maybe" | "no"

/**
 * Whether a remembered answer applies to a call. An allow needs the call wholly covered: every
 * command of the line, or every path where it really lands by a file tool its access reaches.
 * A deny needs one piece: one command of the line (through wrappers), or one path as written or
 * as resolved, by any file tool on its side, or a shell redirection of that side into it.
 * "maybe": a deny's command might be a word only known at run time.
 */
export const rememberedMatches = (
  entry: RememberedApproval,
  workspaceRoot: string,
  tool: string,
  call: PreparedCall,
  paths: CallPaths,
  input: unknown
): Match => {
  if (entry.workspaceRoot !== workspaceRoot) return "no"
  const allow = entry.decision === "allow"
  if (entry.commands !== undefined) {
    if (entry.tool !== tool || call.shell === undefined) return "no"
    if (allow) return prefixesCover(entry.commands, call.shell, workspaceRoot) ? "yes" : "no"
    return prefixesDeny(entry.commands, call.shell)
  }
  if (entry.paths !== undefined) return pathsMatch(entry, entry.paths, workspaceRoot, tool, call, paths) ? "yes" : "no"
  if (entry.input !== undefined) {
    const same = entry.tool === tool && call.command === undefined && call.paths.length === 0 && input !== undefined && canonicalJson(input) === entry.input
    return same ? "yes" : "no"
  }
  return "no"
}

const pathsMatch = (
  entry: RememberedApproval,
  patterns: ReadonlyArray<string>,
  root: string,
  tool: string,
  call: PreparedCall,
  paths: CallPaths
): boolean => {
  // Entries written before `access` was stored: a file tool's answer gets its tool's access.
  const granted = entry.access ?? TOOL_ACCESS[entry.tool]?.access
  const wanted = callAccess(tool, call)
  const matchesAny = (candidates: ReadonlyArray<string>) => candidates.some((p) => patterns.some((pattern) => glob(pattern)(rulePath(root, p))))
  if (entry.decision === "allow") {
    const reaches = granted === undefined ? entry.tool === tool && call.command === undefined : wanted !== undefined && allowReaches(granted, wanted)
    return reaches && call.paths.length > 0 && coversAll(patterns, root, paths.real)
  }
  if (granted === undefined) return entry.tool === tool && call.command === undefined && matchesAny([...paths.lexical, ...paths.real])
  if (wanted !== undefined) return side(wanted) === side(granted) && matchesAny([...paths.lexical, ...paths.real])
  if (call.shell === undefined) return false
  // A shell line: its redirections of the same side are the paths it touches that way.
  const kind = side(granted) === "write" ? "write" : "read"
  return call.shell.commands.some((command) =>
    command.redirects.some((r) => r.kind === kind && matchesAny([r.target, r.real].filter((p): p is string => p !== undefined)))
  )
}

export const loadApprovalsFile = (file: string): Effect.Effect<ApprovalsFile, PermissionStoreError> =>
  Effect.map(loadStoreFile(file, ApprovalsFile, "approvals file"), Option.getOrElse(() => ({ approvals: [] })))

export const saveApprovalsFile = (file: string, content: ApprovalsFile) => saveStoreFile(file, content)
