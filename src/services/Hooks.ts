import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { ConfiguredHook, HookDecision, HookEventName, HookSource, IgnoredHook } from "../domain/hooks.js"

/** One lifecycle point reached: the hooks configured for it (and matching `target`) run. */
export interface HookInvocation {
  readonly event: HookEventName
  readonly sessionId: string
  readonly workspaceRoot: string
  /** What matchers select on: the tool's name, or the start, compaction or end reason. */
  readonly target?: string
  /**
   * The event's own fields of the JSON a hook reads on stdin, in Claude Code's names
   * (`tool_name`, `tool_input`, `prompt`, ...); `session_id`, `hook_event_name`, `cwd` are added.
   */
  readonly fields: Readonly<Record<string, unknown>>
  /** The W3C trace context of the call (or turn) the hook runs for, when tracing is on: the hook's TRACEPARENT. */
  readonly traceparent?: string
}

/** What one hook run asked for, read from its exit code and output. */
export interface HookOutcome {
  readonly decision?: HookDecision
  readonly reason?: string
  /** Text for the model (Claude Code's `additionalContext`, or a prompt hook's plain stdout). */
  readonly additionalContext?: string
}

export interface HookRun {
  readonly event: HookEventName
  readonly matcher?: string
  readonly command: string
  readonly source: HookSource
  /** `null`: killed (timeout or cancel) or never started. */
  readonly exitCode: number | null
  readonly timedOut: boolean
  readonly durationMs: number
  /** stdout then stderr, cut to a few KiB; why it could not start, when it could not. */
  readonly output: string
  readonly outcome: HookOutcome
}

/** A settings file whose `hooks` cannot be used. */
export class HooksConfigError extends Schema.TaggedError<HooksConfigError>()("HooksConfigError", {
  file: Schema.String,
  problem: Schema.String
}) {
  override get message() {
    return `${this.file}: ${this.problem}`
  }
}

export interface ListedHook extends ConfiguredHook {
  /** User hooks always; project hooks once the project's configuration is trusted as it is now. */
  readonly trusted: boolean
}

export interface HookListing {
  readonly hooks: ReadonlyArray<ListedHook>
  readonly ignored: ReadonlyArray<IgnoredHook>
  /** Settings files whose hooks could not be read (nothing of them runs). */
  readonly problems: ReadonlyArray<HooksConfigError>
}

/**
 * User scripts at the agent's lifecycle points, in Claude Code's format. Every hook runs in
 * the sandbox with its timeout, its process group killed on timeout or interruption. Project
 * hooks run only once the project's configuration is trusted; user hooks always.
 */
export interface HooksShape {
  /**
   * Runs the trusted hooks configured for the invocation's event whose matcher selects its
   * target, concurrently, and gives their runs in configuration order (user, project, Claude
   * project). A hook that fails is a run with its exit code, never a failure here.
   */
  readonly run: (invocation: HookInvocation) => Effect.Effect<ReadonlyArray<HookRun>>
  /** Every configured hook for the workspace, where it comes from and whether it is trusted. */
  readonly list: (workspaceRoot: string) => Effect.Effect<HookListing>
}

export class Hooks extends Context.Tag("custom-agent/Hooks")<Hooks, HooksShape>() {}
