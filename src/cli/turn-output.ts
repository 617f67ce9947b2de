import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { outputInvalidCode, retryProblems } from "../core/output-check.js"
import type { AgentEvent } from "../domain/events.js"
import { addSpend, formatCost, noSpend, type Spend, sumSpend } from "../domain/spend.js"
import type { PermissionMode } from "../domain/permissions.js"
import type { ApprovalPolicy } from "../layers/approvals/policy.js"
import { CliError } from "./errors.js"
import { stderr, stdout, useColor, writeSegments } from "./io.js"
import { OUTPUT_INVALID_EXIT_CODE, type TermsArgs } from "./output-schema.js"
import type { LiveView } from "./live-view.js"
import { makeRenderer } from "./render.js"
import { jsonText, paint, sanitizeInline, term } from "./terminal-text.js"
import type { AttachedBlock } from "../domain/attached-blocks.js"

/** What `run` was asked, whichever way it runs (embedded or against a server). */
export interface RunArgs extends TermsArgs {
  readonly prompt: string
  /** The `@path` blocks in `prompt` (prompt-attachments.ts), declared with the prompt; none when left out. */
  readonly attachedBlocks?: ReadonlyArray<AttachedBlock>
  readonly attach: ReadonlyArray<string>
  readonly session: Option.Option<string>
  readonly json: boolean
  /** None: the session's own mode. */
  readonly mode: Option.Option<PermissionMode>
  /** `--model`; none: the session's model (a new session's: the default). */
  readonly model: Option.Option<string>
  /** `--script`: the scripted model plays the session's model, whichever it is. */
  readonly script: Option.Option<string>
  readonly approve: Option.Option<ApprovalPolicy>
  readonly maxSteps: Option.Option<number>
  /** The server's URL when the turn runs on one (`--server`). */
  readonly server: Option.Option<string>
}

const exitCodeOf = (event: AgentEvent): number | undefined => {
  if (event.type !== "turn.completed") return undefined
  if (event.payload.stopReason === "error") return event.payload.errorCode === outputInvalidCode ? OUTPUT_INVALID_EXIT_CODE : 1
  if (event.payload.stopReason === "cancelled") return 130
  return 0
}

// The engine titles untitled sessions by the same rule.
export { titleOf } from "../domain/session-title.js"

/** The line before the session's: what the turn cost (its subagents' included), and the session when it had earlier turns; empty when nothing was asked. */
export const costLine = (turn: Spend, before: Spend): string => {
  // A model with no price has no cost to show (the tokens are in sessions show).
  if (turn.unpriced === turn.requests) return ""
  const session = sumSpend(turn, before)
  const turnPart = `cost ${formatCost(turn)} (${turn.tokens} tokens)`
  return before.requests === 0 ? `${turnPart}\n` : `${turnPart} · session ${formatCost(session)} (${session.tokens} tokens)\n`
}

/**
 * How the turn's events reach the terminal: rendered, or NDJSON of the events as stored (the
 * characters a terminal would obey written as `\uXXXX` escapes: the same JSON values). With
 * `requireOutput` (`--output-schema`), stdout carries only the validated value, as one line of
 * JSON (the answer's text would include the answers that were sent back), each answer sent back
 * is one line on stderr, and a turn that ends without `output.structured` (its step limit or
 * budget came first) exits as one whose answers never validated.
 */
export const makePrinter = (json: boolean, options: { readonly requireOutput?: boolean; readonly view?: LiveView } = {}) => {
  const renderer = options.view ?? makeRenderer({ color: useColor(process.stdout), live: true })
  let exitCode = 0
  let structured = false
  let stoppedBy: string | undefined
  let spent = noSpend
  let before = noSpend
  let sentBack = 0
  const structuredOnly = options.requireOutput === true && !json
  const rendered = (event: AgentEvent): Effect.Effect<void> => {
    if (!structuredOnly) return writeSegments(renderer.render(event))
    switch (event.type) {
      case "model.delta":
        return Effect.void
      case "output.structured":
        return stdout(term`${jsonText(JSON.stringify(event.payload.value))}\n`)
      case "user.message": {
        const problems = retryProblems(event.payload.content)
        if (problems === undefined) break
        sentBack++
        return stderr(term`answer ${sentBack} did not validate against --output-schema, asking again: ${sanitizeInline(problems.join("; "))}\n`)
      }
    }
    return writeSegments(renderer.render(event))
  }
  const show = (event: AgentEvent) =>
    Effect.zipRight(
      Effect.sync(() => {
        exitCode = exitCodeOf(event) ?? exitCode
        spent = addSpend(spent, event)
        if (event.type === "output.structured") structured = true
        if (event.type === "turn.completed") stoppedBy = event.payload.stopReason
      }),
      json ? stdout(term`${jsonText(JSON.stringify(event))}\n`) : rendered(event)
    )
  /** An event of the session from before this run: counted in the session's cost, not shown. */
  const earlier = (event: AgentEvent) =>
    Effect.sync(() => {
      before = addSpend(before, event)
    })
  const finish = (sessionId: string) =>
    Effect.suspend(() => {
      if (options.requireOutput !== true || structured || exitCode !== 0 || stoppedBy === undefined) return Effect.void
      exitCode = OUTPUT_INVALID_EXIT_CODE
      return stderr(`custom-agent: the turn stopped (${stoppedBy}) before an answer validated against --output-schema\n`)
    }).pipe(
      Effect.zipRight(
        Effect.suspend(() => {
          if (json) return Effect.void
          if (options.view !== undefined) return stderr(options.view.closing(sessionId, before))
          const text = `${costLine(spent, before)}session ${sessionId}`
          return stderr(term`${paint(useColor(process.stderr), "2")(text)}\n`)
        })
      ),
      Effect.zipRight(
        Effect.sync(() => {
          process.exitCode = exitCode
        })
      )
    )
  /** A subagent's event as it happens (its tool calls), under its `↳ subagent` line; JSON prints the session's own log only. */
  const child = (event: AgentEvent): Effect.Effect<void> => (json || structuredOnly ? Effect.void : writeSegments(renderer.renderChild(event)))
  /** Whether this printer shows a subagent's steps (worth following its session). */
  const showsChildren = !json && !structuredOnly
  /** Takes the terminal view's spinner off the screen for good (the turn ended, or was interrupted). */
  const close = Effect.sync(() => options.view?.close())
  return { show, earlier, finish, child, showsChildren, close }
}

export const interactive = () => process.stdin.isTTY === true

/**
 * Whether `run` shows the turn for a person at a terminal (Markdown, fitted tool lines, a
 * spinner, a summary line): stdout is a terminal that takes cursor movement (not `TERM=dumb`),
 * and the output is not JSON or a structured answer. Otherwise its output is plain text.
 */
export const onTerminal = (args: Pick<RunArgs, "json" | "outputSchema">) =>
  !args.json && Option.isNone(args.outputSchema) && process.stdout.isTTY === true && process.env["TERM"] !== "dumb"

export const compactRequested = (prompt: string) => prompt.trim() === "/compact"

export const reportCompaction = (compacted: boolean, summary: string | undefined) =>
  stdout(compacted ? `compacted the earlier turns into a summary:\n\n${summary ?? ""}\n` : "nothing new to compact\n")

export const needsSession = new CliError({ message: "/compact works on an existing session: pass --session ID" })

