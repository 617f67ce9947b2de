import { AlreadyProcessingMessage, MailboxFull, PersistenceError } from "@effect/cluster/ClusterError"
import type { Sharding } from "@effect/cluster/Sharding"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import { messageOf } from "../domain/cause-message.js"
import { StoreFailure } from "../domain/errors.js"
import type { HostFrame } from "../domain/host.js"
import { AgentHost } from "../host/AgentHost.js"
import { AppendFeed } from "../services/AppendFeed.js"
import { EventStore } from "../services/EventStore.js"
import { Ids } from "../services/Ids.js"
import { AgentSession, CompactPayload, CreatePayload, EditQueuePayload, PromptPayload } from "./session-entity.js"

/** How often a reader looks at the store without a wake-up (one is lost with a dropped connection). */
const LOOK_EVERY = "1 second"

type DeliveryError = MailboxFull | AlreadyProcessingMessage | PersistenceError

const isDeliveryError = (error: unknown): error is DeliveryError =>
  error instanceof MailboxFull || error instanceof AlreadyProcessingMessage || error instanceof PersistenceError

/** The cluster could not deliver a message (a full mailbox, its storage failing): a store failure, with its cause. */
const delivered = <A, E, R>(effect: Effect.Effect<A, E | DeliveryError, R>): Effect.Effect<A, Exclude<E, DeliveryError> | StoreFailure, R> =>
  Effect.catchIf(effect, isDeliveryError, (error) =>
    Effect.fail(new StoreFailure({ operation: "cluster delivery", reason: messageOf(error), cause: error }))
  )

/** Whether a session works, as its events tell a reader on another runner. */
const statusOf = (frames: ReadonlyArray<HostFrame>): ReadonlyArray<HostFrame> =>
  frames.flatMap((frame): ReadonlyArray<HostFrame> => {
    if (frame._tag !== "Event") return [frame]
    if (frame.event.type === "turn.started") return [{ _tag: "Status", running: true }, frame]
    if (frame.event.type === "turn.completed") return [frame, { _tag: "Status", running: false }]
    return [frame]
  })

/**
 * The host a runner's API serves: every change to a session goes to the session's entity, on
 * whichever runner owns it; reads go to the shared store. A subscriber reads the store after
 * its last sequence at each wake-up of the append feed (and every second without one), so any
 * runner serves any session with no gap and no duplicate. What is not a session's (memory
 * review, import) is this runner's own host's.
 */
export const routerHostLayer: Layer.Layer<AgentHost, never, AgentHost | Sharding | EventStore | AppendFeed | Ids> = Layer.effect(
  AgentHost,
  Effect.gen(function* () {
    const local = yield* AgentHost
    const store = yield* EventStore
    const feed = yield* AppendFeed
    const ids = yield* Ids
    const entity = yield* AgentSession.client
    const requestId = ids.make("msg")

    const subscribe: (typeof local)["subscribe"] = (sessionId, afterSequence) =>
      Stream.unwrapScoped(
        Effect.gen(function* () {
          // Follow before reading anything: an append after this wakes the reader.
          const wakeups = yield* feed.follow(sessionId)
          const baseline = yield* delivered(entity(sessionId).GetSession())
          let last = afterSequence
          let first = true
          const lookAgain = Effect.zipRight(
            Effect.timeoutOption(Queue.take(wakeups), LOOK_EVERY),
            Queue.takeAll(wakeups)
          )
          const next = Effect.gen(function* () {
            if (!first) yield* lookAgain
            first = false
            const events = yield* Stream.runCollect(store.replay(sessionId, last))
            const frames = Chunk.toReadonlyArray(events).map((event): HostFrame => {
              last = event.sequence
              return { _tag: "Event", event }
            })
            return Chunk.fromIterable(statusOf(frames))
          })
          return Stream.make<Array<HostFrame>>({ _tag: "Baseline", session: baseline }).pipe(Stream.concat(Stream.repeatEffectChunk(next)))
        })
      )

    return AgentHost.of({
      createSession: (input) =>
        Effect.gen(function* () {
          const sessionId = input.sessionId ?? (yield* ids.make("ses"))
          const payload = new CreatePayload({
            requestId: yield* requestId,
            cwd: input.cwd,
            client: input.client,
            ...(input.title === undefined ? {} : { title: input.title }),
            ...(input.model === undefined ? {} : { model: input.model }),
            ...(input.attachments === undefined ? {} : { attachments: input.attachments })
          })
          return yield* delivered(entity(sessionId).Create(payload))
        }),
      listSessions: local.listSessions,
      // The store's listing and leases span every runner; this runner's own events come sooner.
      watchSessions: local.watchSessions,
      renameSession: (sessionId, title, by) => delivered(entity(sessionId).Rename({ title, by })),
      archiveSession: (sessionId, archived, by) => delivered(entity(sessionId).Archive({ archived, by })),
      deleteSession: (sessionId, by) => delivered(entity(sessionId).Delete({ by })),
      getSession: (sessionId) => delivered(entity(sessionId).GetSession()),
      // A session's commands are read where its workspace is (its owner); a folder's, on this runner.
      listCommands: (target) => ("cwd" in target ? local.listCommands(target) : delivered(entity(target.sessionId).ListCommands())),
      prompt: (request) =>
        Effect.gen(function* () {
          const { sessionId, ...fields } = request
          const payload = new PromptPayload({ ...fields, requestId: request.requestId ?? (yield* requestId), client: request.client ?? "rpc" })
          return yield* delivered(entity(sessionId).Prompt(payload))
        }),
      cancel: (sessionId) => delivered(entity(sessionId).Cancel()),
      setMode: (sessionId, mode, by) => delivered(entity(sessionId).SetMode({ mode, by })),
      setModel: (sessionId, request) => delivered(entity(sessionId).SetModel(request)),
      respondPermission: (sessionId, toolCallId, answer) => delivered(entity(sessionId).RespondPermission({ toolCallId, answer })),
      editQueue: (sessionId, messageId, action) =>
        Effect.flatMap(requestId, (id) => delivered(entity(sessionId).EditQueue(new EditQueuePayload({ requestId: id, messageId, action })))),
      subscribe,
      exportSession: (sessionId) => store.replay(sessionId),
      compact: (sessionId) =>
        Effect.flatMap(requestId, (id) => delivered(entity(sessionId).Compact(new CompactPayload({ requestId: id })))),
      // On the session's owner: its checkpoints are in that runner's data directory.
      rewind: (sessionId, request) => delivered(entity(sessionId).Rewind(request)),
      redo: (sessionId, request) => delivered(entity(sessionId).Redo(request)),
      forkSession: (sessionId, input) => delivered(entity(sessionId).Fork(input)),
      working: local.working,
      resume: local.resume,
      evict: local.evict,
      reviewMemory: local.reviewMemory,
      deleteMemory: local.deleteMemory,
      importSession: local.importSession
    })
  })
)
