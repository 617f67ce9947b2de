import * as Schema from "effect/Schema"

/**
 * Session modes, checked before any rule:
 * default: reads in the workspace allowed, the rest asks (unless a rule says otherwise);
 * plan: read-only, every write or execution is denied;
 * accept-edits: writes inside the workspace allowed too;
 * bypass: everything allowed; only by an explicit flag.
 */
export const PermissionMode = Schema.Literal("default", "plan", "accept-edits", "bypass")
export type PermissionMode = typeof PermissionMode.Type

export const PermissionDecision = Schema.Literal("allow", "deny", "cancelled")
export type PermissionDecision = typeof PermissionDecision.Type

/** How long an answer holds: this call, the rest of the session, or persisted. */
export const PermissionScope = Schema.Literal("once", "session", "always")
export type PermissionScope = typeof PermissionScope.Type

/** What settled a permission question (`hook`: a PreToolUse or PermissionRequest hook, within what the rules allow). */
export const DecidedBy = Schema.Literal("mode", "rule", "remembered", "user", "policy", "default", "hook")
export type DecidedBy = typeof DecidedBy.Type

/** The rule that matched, so an audit can find it again. */
export const RuleRef = Schema.Struct({
  source: Schema.String,
  index: Schema.Finite,
  tool: Schema.String,
  pattern: Schema.optional(Schema.String),
  /** A remembered answer's id (`custom-agent permissions list` shows it, `revoke` takes it). */
  id: Schema.optional(Schema.String)
})
export type RuleRef = typeof RuleRef.Type

/** What a rule or a remembered approval answers. */
export const RuleDecision = Schema.Literal("allow", "deny", "ask")
export type RuleDecision = typeof RuleDecision.Type

/**
 * One rule of a permissions file. `tool` is a tool name or a glob (`mcp__github__*`, `*`);
 * `path` is a glob matched against the paths a call touches (relative to the workspace root,
 * or absolute).
 *
 * `command` is a shell pattern: words separated by spaces (quote a word to hold spaces),
 * compared with each simple command of the line after quote removal, as bash parses it.
 * `npm test` allows exactly `npm test`; a last word `*` (`npm test *`, or `npm test:*`)
 * allows any further arguments; leading `NAME=value` words are assignments the command must
 * carry. An allow rule matches only when the whole line is understood statically and every
 * simple command in it (lists, pipelines, substitutions, here-documents) is covered by an
 * allow rule, redirections included: a written file needs the rule's `path`. A deny or ask
 * rule matches when its words begin any simple command, after wrappers (`env`, `sudo`,
 * `timeout 5`, `xargs`, ...), the program's directory and known global options
 * (`git -C dir`, `npm --prefix dir`) are set aside. docs/shell-rules.md has the details.
 */
export const PermissionRule = Schema.Struct({
  tool: Schema.String.pipe(Schema.minLength(1)),
  decision: RuleDecision,
  command: Schema.optional(Schema.String.pipe(Schema.minLength(1))),
  path: Schema.optional(Schema.String.pipe(Schema.minLength(1)))
})
export type PermissionRule = typeof PermissionRule.Type

export const PermissionsFile = Schema.Struct({
  rules: Schema.Array(PermissionRule)
})
export type PermissionsFile = typeof PermissionsFile.Type

/**
 * Whether a project's own rules may widen what the agent does. Its deny and ask rules always
 * apply; its allow rules only once a person trusted this exact content (keyed by its hash).
 */
export const ProjectTrust = Schema.Struct({
  workspaceRoot: Schema.String,
  file: Schema.String,
  /** Over the rules file and the settings file together; absent when the project has neither. */
  sha256: Schema.optional(Schema.String),
  /** The allow rules the file holds, which trust turns on. */
  allowRules: Schema.Array(PermissionRule),
  /** The project's `.custom-agent/settings.json` opens the sandbox's network, which trust turns on too. */
  opensNetwork: Schema.Boolean,
  trusted: Schema.Boolean,
  trustedAt: Schema.optional(Schema.String),
  trustedBy: Schema.optional(Schema.String),
  /** The project's hook commands (its `.custom-agent/settings.json` and `.claude/settings.json`), one line each; they run only once trusted. */
  hooks: Schema.optional(Schema.Array(Schema.String)),
  /** The MCP servers of the project's `.custom-agent/mcp.json`, one line each; they start only once trusted. */
  mcpServers: Schema.optional(Schema.Array(Schema.String)),
  /**
   * The project's configuration files that exist and are covered by `sha256` (`file` names the
   * rules file, which is what trust is kept under, whether or not it exists).
   */
  files: Schema.optional(Schema.Array(Schema.String))
})
export type ProjectTrust = typeof ProjectTrust.Type

/**
 * How a file tool touches a path, which is what an answer about that path covers: `write`
 * (write_file, edit_file), `read` (read_file, grep: the content) or `list` (list_files: the
 * names). A deny covers its whole side (a read deny also denies listing; a write deny also
 * denies a shell redirection into the path); an allow covers only as much (a read allow
 * also covers listing, a list allow never covers reading).
 */
export const PathAccess = Schema.Literal("write", "read", "list")
export type PathAccess = typeof PathAccess.Type

/**
 * What a "session" or "always" answer covers, computed from the call when it is asked and
 * stored as it was shown: the analysed command prefixes of a shell line, the paths (literal,
 * or globs a person picked) with how they are touched, or the exact input of a tool that has
 * neither. Never a whole tool.
 */
export const AnswerCover = Schema.Struct({
  /** The tool asked about. */
  tool: Schema.String,
  commands: Schema.optional(Schema.Array(Schema.String)),
  paths: Schema.optional(Schema.Array(Schema.String)),
  access: Schema.optional(PathAccess),
  /** The input as canonical JSON. */
  input: Schema.optional(Schema.String)
})
export type AnswerCover = typeof AnswerCover.Type

/** A remembered answer as listed and revoked (`custom-agent permissions`, RPC `ListRememberedAnswers`). */
export const RememberedAnswer = Schema.Struct({
  ...AnswerCover.fields,
  id: Schema.String,
  decision: Schema.Literal("allow", "deny"),
  scope: Schema.Literal("session", "always"),
  /** The session a "session" answer holds in. */
  sessionId: Schema.optional(Schema.String),
  workspaceRoot: Schema.String,
  createdAt: Schema.String
})
export type RememberedAnswer = typeof RememberedAnswer.Type

/** A revocation, as the approvals file keeps it for an audit: what was revoked, when and by whom. */
export const RevokedAnswer = Schema.Struct({
  answer: RememberedAnswer,
  revokedAt: Schema.String,
  by: Schema.String
})
export type RevokedAnswer = typeof RevokedAnswer.Type

const ACCESS_TOOLS: Record<PathAccess, { readonly allow: string; readonly deny: string }> = {
  write: { allow: "write_file, edit_file", deny: "write_file, edit_file, a shell redirection into it" },
  read: { allow: "read_file, grep, list_files", deny: "read_file, grep, list_files, a shell < from it" },
  list: { allow: "list_files", deny: "list_files, read_file, grep, a shell < from it" }
}

/**
 * What an answer covers, in words a person judges before answering: the same text for the
 * question and the listing, so what was shown is what was stored.
 */
export const describeCover = (cover: AnswerCover, decision?: "allow" | "deny"): string => {
  if (cover.commands !== undefined) {
    const list = cover.commands.join(", ")
    if (decision === undefined) return `the command${cover.commands.length === 1 ? "" : "s"} ${list} (allow: a line made only of these; deny: every line holding one)`
    return decision === "allow" ? `a shell line made only of ${list}` : `any shell line holding ${list}`
  }
  if (cover.paths !== undefined) {
    const paths = cover.paths.join(", ")
    const access = cover.access
    if (access === undefined) return `${cover.tool} on ${paths}`
    const verb = access === "write" ? "changes to" : access === "read" ? "reading" : "listing"
    const tools = decision === undefined ? `allow: ${ACCESS_TOOLS[access].allow}; deny: ${ACCESS_TOOLS[access].deny}` : ACCESS_TOOLS[access][decision]
    return `${verb} ${paths} (${tools})`
  }
  return `${cover.tool} with exactly this input`
}
