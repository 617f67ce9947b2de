import { Chunk, Deferred, Effect, Fiber, Option, Stream } from "effect"
import type { AgentEvent } from "../../src/domain/events.js"
import { AgentClient } from "../../src/rpc/client.js"

/**
 * A client's view of one turn over the RPC API, as the CLI with --server drives it:
 * subscribe from the start, prompt once the subscription is live, collect events until the
 * turn closes. A subscriber the host drops for lagging resumes after the last event it
 * really received, as the protocol says; how often that happened is reported.
 */
export interface FollowedTurn {
  readonly sessionId: string
  readonly turnId: string
  /** Every event received, in order of arrival (session.created included). */
  readonly received: ReadonlyArray<AgentEvent>
  readonly resumes: number
  /** performance.now() just before the prompt was sent, and when turn.completed arrived. */
  readonly promptedAt: number
  readonly completedAt: number
}

export const runTurn = (content: string, title: string) =>
  Effect.gen(function* () {
    const client = yield* AgentClient
    const view = yield* client.CreateSession({ cwd: process.cwd(), title, client: "bench" })
    const sessionId = view.sessionId
    const received: Array<AgentEvent> = []
    let resumes = 0
    let completedAt = 0
    const live = yield* Deferred.make<void>()

    const followOnce = (after: number) =>
      client.Subscribe({ sessionId, afterSequence: after }).pipe(
        Stream.tap((frame) => (frame._tag === "Baseline" ? Deferred.succeed(live, undefined) : Effect.void)),
        Stream.filterMap((frame) => (frame._tag === "Event" ? Option.some(frame.event) : Option.none())),
        Stream.tap((event) =>
          Effect.sync(() => {
            received.push(event)
            if (event.type === "turn.completed") completedAt = performance.now()
          })
        ),
        Stream.takeUntil((event) => event.type === "turn.completed"),
        Stream.runDrain,
        Effect.as(true),
        Effect.catchTag("SubscriberLagged", () => Effect.succeed(false))
      )
    const follow = Effect.gen(function* () {
      while (!(yield* followOnce(received[received.length - 1]?.sequence ?? 0))) resumes++
    })

    const watcher = yield* Effect.fork(follow)
    // Wait for the subscription to be live (its baseline), or for it to fail trying.
    yield* Effect.raceFirst(Deferred.await(live), Effect.zipRight(Fiber.join(watcher), Deferred.await(live)))
    const promptedAt = performance.now()
    const receipt = yield* client.Prompt({ sessionId, content })
    if (receipt._tag !== "Started") return yield* Effect.dieMessage(`session ${sessionId}: the prompt was queued, not started`)
    yield* Fiber.join(watcher)
    const closing = received[received.length - 1]
    if (closing?.type !== "turn.completed" || closing.turnId !== receipt.turnId || closing.payload.stopReason !== "final") {
      return yield* Effect.dieMessage(`session ${sessionId}: the turn did not close with a final answer`)
    }
    const turn: FollowedTurn = { sessionId, turnId: receipt.turnId, received, resumes, promptedAt, completedAt }
    return turn
  })

export interface Delivery {
  readonly lost: number
  readonly duplicated: number
  /** Received out of order, or different from the stored event with the same sequence. */
  readonly mismatched: number
}

/**
 * Compares what the client received with the session's export: the received sequences must
 * be exactly 1..last in order, each event equal to the stored one.
 */
export const checkDelivery = (turn: FollowedTurn) =>
  Effect.gen(function* () {
    const client = yield* AgentClient
    const exported = Chunk.toReadonlyArray(yield* Stream.runCollect(client.ExportSession({ sessionId: turn.sessionId })))
    const seen = new Map<number, number>()
    for (const event of turn.received) seen.set(event.sequence, (seen.get(event.sequence) ?? 0) + 1)
    const last = turn.received.reduce((max, e) => Math.max(max, e.sequence), exported.length)
    let lost = 0
    for (let s = 1; s <= last; s++) if (!seen.has(s)) lost++
    const duplicated = turn.received.length - seen.size
    let mismatched = 0
    turn.received.forEach((event, i) => {
      const stored = exported[event.sequence - 1]
      const inOrder = event.sequence === i + 1
      if (!inOrder || stored === undefined || JSON.stringify(stored) !== JSON.stringify(event)) mismatched++
    })
    const delivery: Delivery = { lost, duplicated, mismatched }
    return delivery
  })
