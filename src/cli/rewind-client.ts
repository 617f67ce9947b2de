import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { RedoRequest, RewindRequest } from "../core/SessionEngine.js"
import type { AgentEvent, PayloadOf } from "../domain/events.js"
import type { RewindResult } from "../domain/rewind.js"
import { AgentHost } from "../host/AgentHost.js"

export interface Forked {
  readonly sessionId: string
  /** The new session's `session.forked`: where it came from, and how much was copied. */
  readonly forked: PayloadOf<"session.forked"> | undefined
}

/** Rewind, redo and fork, on the host in this process or on a server (`--server`). */
export interface RewindClient {
  /** The session's workspace: a `--file` path is made relative to it. */
  readonly workspaceOf: (sessionId: string) => Effect.Effect<string, unknown>
  readonly rewind: (sessionId: string, request: RewindRequest) => Effect.Effect<RewindResult, unknown>
  readonly redo: (sessionId: string, request: RedoRequest) => Effect.Effect<RewindResult, unknown>
  readonly fork: (sessionId: string, atSequence: number | undefined) => Effect.Effect<Forked, unknown>
}

/** The new session's `session.forked`, read from the first events of its log. */
export const forkedOf = <E>(head: Stream.Stream<AgentEvent, E>): Effect.Effect<PayloadOf<"session.forked"> | undefined, E> =>
  Effect.map(Stream.runCollect(Stream.take(head, 2)), (events) => {
    for (const event of Chunk.toReadonlyArray(events)) if (event.type === "session.forked") return event.payload
    return undefined
  })

export const localRewindClient = Effect.map(
  AgentHost,
  (host): RewindClient => ({
    workspaceOf: (sessionId) => Effect.map(host.getSession(sessionId), (view) => view.cwd),
    rewind: host.rewind,
    redo: host.redo,
    fork: (sessionId, atSequence) =>
      Effect.gen(function* () {
        const view = yield* host.forkSession(sessionId, { by: "cli", ...(atSequence === undefined ? {} : { atSequence }) })
        return { sessionId: view.sessionId, forked: yield* forkedOf(host.exportSession(view.sessionId)) }
      })
  })
)
