import * as Effect from "effect/Effect"
import { createReadStream } from "node:fs"
import { createInterface } from "node:readline"
import { decodeEventJson } from "../domain/decode.js"
import type { AgentEvent } from "../domain/events.js"
import { sessionLogProblem } from "../domain/session-log.js"
import { CliError } from "./errors.js"
import { messageOf } from "../domain/cause-message.js"

/**
 * Reads and validates a whole session export before anything is written: every line must
 * decode and the events must form one session's log. The first bad line is named.
 */
export const readSessionFile = (path: string): Effect.Effect<ReadonlyArray<AgentEvent>, CliError> =>
  Effect.tryPromise({
    try: async () => {
      const events: Array<AgentEvent> = []
      const lineOf: Array<number> = []
      const lines = createInterface({ input: createReadStream(path, { encoding: "utf8" }), crlfDelay: Infinity })
      let number = 0
      for await (const text of lines) {
        number++
        if (text.trim() === "") continue
        const decoded = decodeEventJson(text, number)
        if (decoded._tag === "Left") return { error: decoded.left.message }
        events.push(decoded.right)
        lineOf.push(number)
      }
      const problem = sessionLogProblem(events)
      if (problem !== undefined) {
        const line = lineOf[problem.index]
        return { error: line === undefined ? problem.message : `line ${line}: ${problem.message}` }
      }
      return { events }
    },
    catch: (error) => new CliError({ message: `cannot read ${path}: ${messageOf(error)}` })
  }).pipe(
    Effect.flatMap((result) =>
      "events" in result ? Effect.succeed(result.events) : Effect.fail(new CliError({ message: `${path}: ${result.error}; nothing was imported` }))
    )
  )
