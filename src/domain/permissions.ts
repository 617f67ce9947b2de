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

/** What settled a permission question. */
export const DecidedBy = Schema.Literal("mode", "rule", "remembered", "user", "policy", "default")
export type DecidedBy = typeof DecidedBy.Type

/** The rule that matched, so an audit can find it again. */
export const RuleRef = Schema.Struct({
  source: Schema.String,
  index: Schema.Finite,
  tool: Schema.String,
  pattern: Schema.optional(Schema.String)
})
export type RuleRef = typeof RuleRef.Type

/** What a rule or a remembered approval answers. */
export const RuleDecision = Schema.Literal("allow", "deny", "ask")
export type RuleDecision = typeof RuleDecision.Type

/**
 * One rule of a permissions file. `tool` is a tool name or a glob (`mcp__github__*`, `*`);
 * `command` matches a shell command by word prefix; `path` is a glob matched against the
 * paths a call touches (relative to the workspace root, or absolute).
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
