import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { AgentEvent } from "../domain/events.js"
import type { PermissionMode } from "../domain/permissions.js"
import type { ApprovalPolicy } from "../layers/approvals/policy.js"
import { CliError } from "./errors.js"
import { stderr, stdout, useColor, writeSegments } from "./io.js"
import { makeRenderer } from "./render.js"

/** What `run` was asked, whichever way it runs (embedded or against a server). */
export interface RunArgs {
  readonly prompt: string
  readonly attach: ReadonlyArray<string>
  readonly session: Option.Option<string>
  readonly json: boolean
  /** None: the session's own mode. */
  readonly mode: Option.Option<PermissionMode>
  readonly approve: Option.Option<ApprovalPolicy>
  readonly maxSteps: Option.Option<number>
  /** The server's URL when the turn runs on one (`--server`). */
  readonly server: Option.Option<string>
}

const exitCodeOf = (event: AgentEvent): number | undefined => {
  if (event.type !== "turn.completed") return undefined
  if (event.payload.stopReason === "error") return 1
  if (event.payload.stopReason === "cancelled") return 130
  return 0
}

// The engine titles untitled sessions by the same rule.
export { titleOf } from "../domain/session-title.js"

/** How the turn's events reach the terminal: rendered, or NDJSON exactly as stored. */
export const makePrinter = (json: boolean) => {
  const renderer = makeRenderer({ color: useColor(process.stdout), live: true })
  let exitCode = 0
  const show = (event: AgentEvent) =>
    Effect.zipRight(
      Effect.sync(() => {
        exitCode = exitCodeOf(event) ?? exitCode
      }),
      json ? stdout(`${JSON.stringify(event)}\n`) : writeSegments(renderer.render(event))
    )
  const finish = (sessionId: string) =>
    Effect.zipRight(
      json ? Effect.void : stderr(useColor(process.stderr) ? `\x1b[2msession ${sessionId}\x1b[0m\n` : `session ${sessionId}\n`),
      Effect.sync(() => {
        process.exitCode = exitCode
      })
    )
  return { show, finish }
}

export const interactive = () => process.stdin.isTTY === true

export const compactRequested = (prompt: string) => prompt.trim() === "/compact"

export const reportCompaction = (compacted: boolean, summary: string | undefined) =>
  stdout(compacted ? `compacted the earlier turns into a summary:\n\n${summary ?? ""}\n` : "nothing new to compact\n")

export const needsSession = new CliError({ message: "/compact works on an existing session: pass --session ID" })

