import * as Effect from "effect/Effect"
import { createReadStream } from "node:fs"
import { messageOf } from "../domain/cause-message.js"
import { decodeEventJson } from "../domain/decode.js"
import type { AgentEvent } from "../domain/events.js"
import { planImport } from "../domain/session-log.js"
import { sessionsOf } from "../domain/session-rename.js"
import { boundedLines } from "./bounded-lines.js"
import { CliError } from "./errors.js"

/** The longest line (one event) an import reads by default: far above any real event, far below V8's 512 MB string limit. */
export const DEFAULT_MAX_LINE_MIB = 64

export interface ImportFileOptions {
  /** Longest line read, in bytes; a longer one ends the import with its line number. */
  readonly maxLineBytes: number
  /** Accept a log that breaks the engine's invariants (the host marks it as imported unverified). */
  readonly unverified: boolean
}

/** One session of an export file: a session's log, or one of its subagents'. */
export interface ExportedSession {
  readonly sessionId: string
  readonly events: ReadonlyArray<AgentEvent>
}

const sizeOf = (bytes: number) => (bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`)

/**
 * Reads and checks a whole session export before anything is written: the file is streamed
 * and no line is held past `maxLineBytes`; every line must decode, and each session's events
 * (a session, then its subagents') must be a log a store can hold that keeps the engine's
 * invariants (`planImport`, the check the host makes again). The first bad line is named.
 */
export const readSessionFile = (path: string, options: ImportFileOptions): Effect.Effect<ReadonlyArray<ExportedSession>, CliError> =>
  Effect.tryPromise({
    try: async () => {
      const events: Array<AgentEvent> = []
      const lineOf: Array<number> = []
      for await (const line of boundedLines(createReadStream(path), options.maxLineBytes)) {
        if (line._tag === "TooLong") {
          return { error: `line ${line.number} is longer than ${sizeOf(options.maxLineBytes)}, the most one event may take (--max-line-mib)` }
        }
        if (line.text.trim() === "") continue
        const decoded = decodeEventJson(line.text, line.number)
        if (decoded._tag === "Left") return { error: decoded.left.message }
        events.push(decoded.right)
        lineOf.push(line.number)
      }
      // An export holds a session, then its subagents' sessions: each is checked as its own log.
      const lineOfEvent = new Map(events.map((event, index) => [event, lineOf[index]]))
      const sessions = sessionsOf(events)
      for (const session of sessions) {
        // Checked as if unverified first: what no store can hold is refused either way.
        const plan = planImport(session.events, { unverified: true })
        const problem = plan._tag === "Refused" ? plan.problem : options.unverified ? undefined : plan.unverified
        if (problem === undefined) continue
        const problemEvent = session.events[problem.index]
        const line = problemEvent === undefined ? undefined : lineOfEvent.get(problemEvent)
        const where = line === undefined ? problem.message : `line ${line}: ${problem.message}`
        return { error: plan._tag === "Refused" ? where : `${where} (--unverified imports it anyway, marked as unverified)` }
      }
      return { sessions }
    },
    catch: (error) => new CliError({ message: `cannot read ${path}: ${messageOf(error)}`, cause: error })
  }).pipe(
    Effect.flatMap((result) =>
      "sessions" in result ? Effect.succeed(result.sessions) : Effect.fail(new CliError({ message: `${path}: ${result.error}; nothing was imported` }))
    )
  )
