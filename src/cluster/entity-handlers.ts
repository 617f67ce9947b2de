import * as Entity from "@effect/cluster/Entity"
import { Sharding } from "@effect/cluster/Sharding"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import { AgentHost } from "../host/AgentHost.js"
import { Fanout } from "../host/fanout.js"
import { AgentSession } from "./session-entity.js"

/**
 * The owner's side of a session entity: each message goes to this runner's host, which holds
 * the session's actor. While the session works (a turn, or its inbox being worked through) the
 * entity is kept alive, so no idle timer passivates it under a background turn; passivation
 * lets the actor go.
 */
export const sessionEntityLayer = (options: { readonly maxIdleTime: Duration.DurationInput }) =>
  AgentSession.toLayer(
    Effect.gen(function* () {
      const host = yield* AgentHost
      const fanout = yield* Fanout
      const sessionId = (yield* Entity.CurrentAddress).entityId

      // Listen before looking, so no change of work falls in between.
      const work = yield* fanout.subscribe(sessionId)
      const followWork: Effect.Effect<void, never, Sharding | Entity.CurrentAddress> = Effect.flatMap(work.frames.takeAll, ([frames, done]) =>
        Effect.zipRight(
          Effect.forEach(frames, (frame) => (frame._tag === "Status" ? Entity.keepAlive(frame.running) : Effect.void), { discard: true }),
          done ? Effect.void : Effect.suspend(() => followWork)
        )
      )
      yield* Effect.forkScoped(followWork)
      yield* Effect.addFinalizer(() => host.evict(sessionId))

      // Taking over: a turn the previous owner left open is closed as interrupted (not re-run:
      // its tool calls may have had effects), then whatever waits in the inbox runs.
      const taken = yield* Effect.either(Effect.zipRight(host.getSession(sessionId), host.resume(sessionId)))
      if (taken._tag === "Left" && taken.left._tag !== "SessionNotFound") {
        yield* Effect.logWarning(`session ${sessionId}: could not take it over yet; its next message tries again`, taken.left)
      }
      // Already working (resume started its inbox): kept alive from now, before any Status frame.
      if ((yield* host.working).has(sessionId)) yield* Entity.keepAlive(true)

      return AgentSession.of({
        Create: ({ payload }) =>
          // Delivered again after a failover: the session is already there.
          host.getSession(sessionId).pipe(
            Effect.catchTag("SessionNotFound", () =>
              host.createSession({
                sessionId,
                cwd: payload.cwd,
                client: payload.client,
                ...(payload.title === undefined ? {} : { title: payload.title }),
                ...(payload.model === undefined ? {} : { model: payload.model }),
                ...(payload.attachments === undefined ? {} : { attachments: payload.attachments })
              })
            )
          ),
        Prompt: ({ payload }) => host.prompt({ ...payload, sessionId }),
        EditQueue: ({ payload }) => host.editQueue(sessionId, payload.messageId, payload.action),
        Compact: () => host.compact(sessionId),
        GetSession: () => host.getSession(sessionId),
        ListCommands: () => host.listCommands({ sessionId }),
        Cancel: () => host.cancel(sessionId),
        SetMode: ({ payload }) => host.setMode(sessionId, payload.mode, payload.by),
        SetModel: ({ payload }) => host.setModel(sessionId, payload),
        Rename: ({ payload }) => host.renameSession(sessionId, payload.title, payload.by),
        Archive: ({ payload }) => host.archiveSession(sessionId, payload.archived, payload.by),
        Delete: ({ payload }) => host.deleteSession(sessionId, payload.by),
        RespondPermission: ({ payload }) => host.respondPermission(sessionId, payload.toolCallId, payload.answer),
        // The payloads are the host's requests as they are.
        Rewind: ({ payload }) => host.rewind(sessionId, payload),
        Redo: ({ payload }) => host.redo(sessionId, payload),
        Fork: ({ payload }) => host.forkSession(sessionId, payload)
      })
    }),
    // Cancel and permission answers must not wait behind a prompt.
    { concurrency: "unbounded", maxIdleTime: options.maxIdleTime }
  )

/**
 * A stopping runner (SIGTERM) first lets the turns it runs finish, for up to `grace`, and only
 * then leaves the cluster: were its shards to go first, the next owner would close those turns
 * as interrupted while they still ran here. Built after sharding, so released before it.
 */
export const drainOnStopLayer = (grace: Duration.DurationInput) =>
  Layer.scopedDiscard(
    Effect.gen(function* () {
      const host = yield* AgentHost
      yield* Sharding
      yield* Effect.addFinalizer(() =>
        host.working.pipe(
          Effect.repeat({ until: (working) => working.size === 0, schedule: Schedule.spaced("100 millis") }),
          Effect.timeout(grace),
          Effect.catchAll(() => Effect.logWarning(`stopping with turns still running after ${Duration.format(grace)}: the next owners close them as interrupted`))
        )
      )
    })
  )
