import * as Option from "effect/Option"
import { randomUUID } from "node:crypto"
import { modelIdOf } from "./model-notice.js"
import { termsOf } from "./output-schema.js"
import { titleOf, type RunArgs } from "./turn-output.js"

/**
 * What `run` asks the host for, the same whether it follows the turn or leaves it running
 * (`--bg`): a new session, and the prompt with its mode, model, attachments and limits.
 */

/** The host keeps the session's model; --model names another, recorded as the session's from this turn on. */
export const chosenModel = (args: RunArgs): Option.Option<string> => Option.map(args.model, modelIdOf)

export const newSessionRequest = (args: RunArgs) => {
  const model = chosenModel(args)
  return {
    cwd: process.cwd(),
    title: titleOf(args.prompt),
    client: "cli",
    attachments: args.attach,
    ...(Option.isSome(model) ? { model: model.value } : {})
  }
}

export const promptRequest = (args: RunArgs, sessionId: string) => {
  const model = chosenModel(args)
  // The turn's limits and output schema go with it: the host enforces them.
  const terms = termsOf(args)
  return {
    sessionId,
    content: args.prompt,
    ...(args.attachedBlocks === undefined || args.attachedBlocks.length === 0 ? {} : { attached: args.attachedBlocks }),
    client: "cli",
    ...(Option.isSome(args.mode) ? { permissionMode: args.mode.value } : {}),
    ...(Option.isSome(model) ? { model: model.value } : {}),
    ...(args.attach.length === 0 ? {} : { attachments: args.attach }),
    ...(Option.isSome(args.maxSteps) ? { maxSteps: args.maxSteps.value } : {}),
    ...(terms === undefined ? {} : { terms }),
    // A prompt retried after a dropped connection starts one turn, not two.
    requestId: randomUUID()
  }
}
