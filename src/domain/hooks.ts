import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"

/** The lifecycle points a hook can run at: Claude Code's names, the subset this agent has. */
export const HookEventName = Schema.Literal(
  "SessionStart",
  "UserPromptSubmit",
  "PreToolUse",
  "PermissionRequest",
  "PostToolUse",
  "PreCompact",
  "Stop",
  "SessionEnd"
)
export type HookEventName = typeof HookEventName.Type

const knownEvents: ReadonlySet<string> = new Set(HookEventName.literals)
export const isHookEventName = (name: string): name is HookEventName => knownEvents.has(name)

/**
 * Where a hook is configured: the user's `settings.json` (trusted), the project's
 * `.custom-agent/settings.json`, or the project's `.claude/settings.json` (both run only once
 * the project's configuration is trusted).
 */
export const HookSource = Schema.Literal("user", "project", "claude")
export type HookSource = typeof HookSource.Type

/** What a hook run asked for, as the engine read it. */
export const HookDecision = Schema.Literal("allow", "deny", "ask", "block", "continue")
export type HookDecision = typeof HookDecision.Type

/** One configured hook command, flattened from its event and matcher group. */
export interface ConfiguredHook {
  readonly event: HookEventName
  /** Absent, `""` or `*`: every target. */
  readonly matcher?: string
  readonly command: string
  /** Seconds before the command is killed. */
  readonly timeoutSeconds: number
  readonly source: HookSource
  readonly file: string
}

/** What a settings file's `hooks` holds that this agent does not run (other events, other handler types). */
export interface IgnoredHook {
  readonly event: string
  readonly why: string
  readonly file: string
}

export const DEFAULT_HOOK_TIMEOUT_SECONDS = 60

const HandlerJson = Schema.Struct({
  type: Schema.String,
  command: Schema.optional(Schema.String),
  timeout: Schema.optional(Schema.Number.pipe(Schema.positive()))
})
const MatcherGroupJson = Schema.Struct({
  matcher: Schema.optional(Schema.String),
  hooks: Schema.Array(HandlerJson)
})
/** The part of a settings file hooks read; other keys belong to others. */
const SettingsHooksJson = Schema.Struct({
  hooks: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Array(MatcherGroupJson) }))
})
const decodeSettings = Schema.decodeUnknownEither(SettingsHooksJson)

export interface HooksOfFile {
  readonly hooks: ReadonlyArray<ConfiguredHook>
  readonly ignored: ReadonlyArray<IgnoredHook>
}

/**
 * The hooks of one parsed settings file, in Claude Code's shape:
 * `{ "hooks": { "<Event>": [{ "matcher": "...", "hooks": [{ "type": "command", "command": "...", "timeout": 30 }] }] } }`.
 * Events and handler types this agent does not have are listed as ignored, not refused, so a
 * `.claude/settings.json` written for Claude Code still loads. A malformed `hooks` is a problem in words.
 */
export const hooksOfSettings = (json: unknown, source: HookSource, file: string): Either.Either<HooksOfFile, string> =>
  Either.match(decodeSettings(json), {
    onLeft: (error) => Either.left(ParseResult.TreeFormatter.formatErrorSync(error)),
    onRight: (settings) => {
      const hooks: Array<ConfiguredHook> = []
      const ignored: Array<IgnoredHook> = []
      for (const [event, groups] of Object.entries(settings.hooks ?? {})) {
        if (!isHookEventName(event)) {
          ignored.push({ event, why: "not an event this agent has", file })
          continue
        }
        for (const group of groups) {
          for (const handler of group.hooks) {
            if (handler.type !== "command" || handler.command === undefined || handler.command.trim() === "") {
              ignored.push({ event, why: `a "${handler.type}" handler (only "command" hooks with a command run)`, file })
              continue
            }
            hooks.push({
              event,
              ...(group.matcher === undefined ? {} : { matcher: group.matcher }),
              command: handler.command,
              timeoutSeconds: handler.timeout ?? DEFAULT_HOOK_TIMEOUT_SECONDS,
              source,
              file
            })
          }
        }
      }
      return Either.right({ hooks, ignored })
    }
  })

/** One line naming a hook, for a trust prompt or a listing. */
export const describeHook = (hook: Pick<ConfiguredHook, "event" | "matcher" | "command">): string =>
  `${hook.event}${hook.matcher === undefined || hook.matcher === "" ? "" : ` [${hook.matcher}]`}: ${hook.command}`
