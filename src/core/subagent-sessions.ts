import * as Effect from "effect/Effect"
import type { TurnRequest } from "../domain/host.js"
import { Ids } from "../services/Ids.js"
import { ModelGateway } from "../services/ModelGateway.js"
import { ModelResolver } from "../services/ModelResolver.js"
import { childModel as childModelOf } from "./child-model.js"
import { childTally } from "./child-tally.js"
import type { ConversationOptions } from "./conversation.js"
import { makeActor } from "./session-actor.js"
import type { SessionRegistry } from "./session-registry.js"
import { emptySessionState } from "./session-state.js"
import type { RunChild, SubagentsShape } from "./subagents.js"
import type { TurnClaims } from "./turn-claims.js"
import { preview, type RunClaimed, type TurnSink } from "./turn-admission.js"

export interface SubagentSessionsDeps {
  readonly registry: SessionRegistry
  readonly claims: TurnClaims
  readonly conversation: ConversationOptions
}

/** The `Subagents` a turn runner provides in its turns' scope, running each child's turn on itself. */
export type SubagentSessions = (runClaimed: RunClaimed) => SubagentsShape

/**
 * A subagent: a session of its own (its `session.created` names the parent's session, turn
 * and call), one turn on the delegation prompt under the parent's mode, run on this fiber so
 * that interrupting the parent's call cancels it (its turn is then closed `cancelled`). The
 * turn runner (`makeRunClaimed`) gives itself when it builds the `Subagents` its turns provide.
 */
export const makeSubagentSessions = ({ registry, claims, conversation }: SubagentSessionsDeps) =>
  Effect.gen(function* () {
    const ids = yield* Ids
    const gateway = yield* ModelGateway
    // Optional: without it a subagent's definition can name no model but the engine's (or its parent's).
    const childModel = childModelOf(gateway, yield* Effect.serviceOption(ModelResolver))

    const runChild =
      (runClaimed: RunClaimed): RunChild =>
      (request, started) =>
        Effect.scoped(
          Effect.gen(function* () {
            const { parent, agent, delegation } = request
            // Before the child exists: a model that cannot be used leaves no empty session behind.
            const model = yield* childModel(request.agent, request.parentModel)
            const childId = yield* ids.make("ses")
            const fresh = yield* makeActor(registry.services, emptySessionState(childId, conversation))
            yield* fresh.commit({
              type: "session.created",
              payload: {
                cwd: parent.workspaceRoot,
                client: "subagent",
                title: `${agent.name}: ${preview(request.prompt)}`,
                model: model.info.id,
                ...(model.info.api === undefined ? {} : { api: model.info.api }),
                parent: { sessionId: parent.sessionId, turnId: parent.turnId, toolCallId: parent.toolCallId, agent: agent.name, depth: delegation.depth }
              }
            })
            const tally = childTally()
            const sink: TurnSink = {
              offer: (event) => Effect.sync(() => tally.offer(event)),
              offerAll: (events) => Effect.sync(() => events.forEach(tally.offer)),
              admitted: () => Effect.void
            }
            const input: TurnRequest = {
              sessionId: childId,
              content: request.prompt,
              client: "subagent",
              permissionMode: delegation.mode()
            }
            return yield* registry.adopt(
              fresh,
              Effect.gen(function* () {
                const actor = yield* registry.hold(childId)
                yield* started(childId, () => tally.result(childId))
                const claimed = yield* claims.claim(actor)
                yield* runClaimed(actor, claimed, input, sink, { ...delegation, model })
                return tally.result(childId)
              })
            )
          })
        )

    const sessions: SubagentSessions = (runClaimed) => ({ run: runChild(runClaimed) })
    return sessions
  })
