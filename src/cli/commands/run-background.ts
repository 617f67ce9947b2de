import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { AgentClient } from "../../rpc/client.js"
import { workspaceMismatch } from "../../host/session-workspace.js"
import { CliError, USAGE_EXIT_CODE } from "../errors.js"
import { newSessionRequest, promptRequest } from "../turn-requests.js"
import { stderr, stdout } from "../io.js"
import { term } from "../terminal-text.js"
import type { RunArgs } from "../turn-output.js"

/**
 * `run --bg`: the prompt goes to the local host and this process returns at once; the turn
 * runs there, its questions wait for a client (`attach`, the web page, an editor) to answer.
 * Prints the session id on stdout (for scripts), how to follow it on stderr.
 */
export const runBackground = (args: RunArgs) =>
  Effect.gen(function* () {
    if (Option.isSome(args.approve)) {
      return yield* new CliError({
        message: "--approve cannot answer a --bg turn's questions (this process is gone by then): answer them with `custom-agent attach`, or run without --bg",
        exitCode: USAGE_EXIT_CODE
      })
    }
    const client = yield* AgentClient
    const view = Option.isSome(args.session) ? yield* client.GetSession({ sessionId: args.session.value }) : yield* client.CreateSession(newSessionRequest(args))
    const mismatch = Option.isSome(args.session) ? workspaceMismatch(view.sessionId, view.cwd, process.cwd()) : undefined
    if (mismatch !== undefined) return yield* new CliError({ message: `${mismatch} (cd ${view.cwd} first)` })
    const receipt = yield* client.Prompt(promptRequest(args, view.sessionId))
    yield* stdout(`${view.sessionId}\n`)
    const where = receipt._tag === "Queued" ? "queued behind the running turn in the local host" : "running in the local host"
    yield* stderr(term`session ${view.sessionId}: ${where} · follow it: custom-agent attach ${view.sessionId}\n`)
  })
