import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { randomUUID } from "node:crypto"
import { AgentClient } from "../../rpc/client.js"
import { workspaceMismatch } from "../../host/session-workspace.js"
import { CliError } from "../errors.js"
import { modelIdOf } from "../model-notice.js"
import { stderr, stdout } from "../io.js"
import { term } from "../terminal-text.js"
import { titleOf, type RunArgs } from "../turn-output.js"

/**
 * `run --bg`: the prompt goes to the local host and this process returns at once; the turn
 * runs there, its questions wait for a client (`attach`, the web page, an editor) to answer.
 * Prints the session id on stdout (for scripts), how to follow it on stderr.
 */
export const runBackground = (args: RunArgs) =>
  Effect.gen(function* () {
    const client = yield* AgentClient
    const model = Option.map(args.model, modelIdOf)
    const view = Option.isSome(args.session)
      ? yield* client.GetSession({ sessionId: args.session.value })
      : yield* client.CreateSession({
          cwd: process.cwd(),
          title: titleOf(args.prompt),
          client: "cli",
          attachments: args.attach,
          ...(Option.isSome(model) ? { model: model.value } : {})
        })
    const mismatch = Option.isSome(args.session) ? workspaceMismatch(view.sessionId, view.cwd, process.cwd()) : undefined
    if (mismatch !== undefined) return yield* new CliError({ message: `${mismatch} (cd ${view.cwd} first)` })
    const receipt = yield* client.Prompt({
      sessionId: view.sessionId,
      content: args.prompt,
      client: "cli",
      ...(Option.isSome(args.mode) ? { permissionMode: args.mode.value } : {}),
      ...(Option.isSome(model) ? { model: model.value } : {}),
      ...(args.attach.length === 0 ? {} : { attachments: args.attach }),
      ...(Option.isSome(args.maxSteps) ? { maxSteps: args.maxSteps.value } : {}),
      requestId: randomUUID()
    })
    yield* stdout(`${view.sessionId}\n`)
    const where = receipt._tag === "Queued" ? "queued behind the running turn in the local host" : "running in the local host"
    yield* stderr(term`session ${view.sessionId}: ${where} · follow it: custom-agent attach ${view.sessionId}\n`)
  })
