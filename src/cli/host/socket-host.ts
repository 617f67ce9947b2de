import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import { chmodSync, rmSync, statSync } from "node:fs"
import { dirname } from "node:path"
import { packageVersion } from "../../app/package-root.js"
import { notificationsOn } from "../../app/notification-settings.js"
import { AgentHost } from "../../host/AgentHost.js"
import { Fanout } from "../../host/fanout.js"
import { type QuestionChange, questionChange, watchWaiting } from "../../host/waiting-notice.js"
import { desktopNotifierLayer } from "../../layers/desktop-notifier.js"
import { userSettingsFile } from "../../layers/sandbox/settings.js"
import { Notifier } from "../../services/Notifier.js"
import type { HostStatus } from "../../rpc/host-control.js"
import { HostProcess, type StopWhen } from "../../rpc/host-control.js"
import { socketServerLayer } from "../../rpc/socket-server.js"
import { CliError } from "../errors.js"
import { followKeptToken, type KeptToken, keptToken } from "../kept-token.js"
import { hostSocketPath, socketPathProblem } from "./host-files.js"
import { acquireHostLock, type HostLock } from "./host-lock.js"
import { probeHost } from "./probe.js"

/** How long a stopping host waits for another one's start to remove its socket; past it the socket stays, found dead by the next start. */
const REMOVAL_LOCK_WAIT = Duration.seconds(10)

/** How often the host looks whether it has been idle long enough. */
const IDLE_CHECK = Duration.seconds(1)

/** The socket this process bound, as the kernel knows it: a file at the path that is not this one is another host's. */
interface BoundSocket {
  readonly dev: bigint
  readonly ino: bigint
}

const socketAt = (path: string): BoundSocket | undefined => {
  const stat = statSync(path, { bigint: true, throwIfNoEntry: false })
  return stat === undefined ? undefined : { dev: stat.dev, ino: stat.ino }
}

const isBound = (path: string, bound: BoundSocket) => {
  const now = socketAt(path)
  return now !== undefined && now.dev === bound.dev && now.ino === bound.ino
}

/**
 * The data directory's host socket for this process to serve, holding the host lock until it
 * listens (socketHostLayer releases it; release it yourself if the host never gets there), or
 * the live host that holds it.
 */
export type SocketClaim =
  | { readonly _tag: "Free"; readonly path: string; readonly token: KeptToken; readonly lock: HostLock }
  | { readonly _tag: "Taken"; readonly status: HostStatus }

/**
 * Whether the data directory's host socket is free for this process; a socket nothing answers
 * on is removed. Under the host lock (host-lock.ts), so of several hosts starting at once one
 * finds the path free and binds it, and the others wait and find it live.
 */
export const claimHostSocket = (dataDir: string): Effect.Effect<SocketClaim, CliError> =>
  Effect.gen(function* () {
    const path = hostSocketPath(dataDir)
    const tooLong = socketPathProblem(path)
    if (tooLong !== undefined) return yield* new CliError({ message: tooLong })
    const token = yield* keptToken(dataDir, false)
    const lock = yield* acquireHostLock(dataDir)
    const found = yield* Effect.onError(probeHost(path, token.value), () => lock.release)
    if (found._tag === "Live") {
      yield* lock.release
      const taken: SocketClaim = { _tag: "Taken", status: found.status }
      return taken
    }
    if (found._tag === "Refused") {
      yield* lock.release
      return yield* new CliError({ message: `${path} ${found.reason}: not replaced` })
    }
    // Nothing answers there: a socket a dead host left (or none). Bind cannot reuse the path.
    if (found._tag === "Stale") rmSync(path, { force: true })
    const free: SocketClaim = { _tag: "Free", path, token, lock }
    return free
  })

export interface SocketHostOptions {
  /** Seconds with no client connected and no turn running after which the host is done (0: never). */
  readonly idleExit: number
  /** The sandbox this host's agent runs commands in, as it was asked for. */
  readonly sandbox: { readonly mode: "auto" | "off" | "on"; readonly network: boolean }
  /** The user configuration folder this host's agent reads (its rules and settings). */
  readonly configDir: string
  /** Completed when the host should go: asked to stop, or idle for long enough. */
  readonly done: Deferred.Deferred<void>
}

/**
 * The host's API and its control on the claimed socket, for the AgentHost provided to it (a
 * `host run`'s or a `serve`'s). The socket is made 0600 once it listens and removed when the
 * layer goes.
 */
export const socketHostLayer = (claim: { readonly path: string; readonly token: KeptToken; readonly lock: HostLock }, options: SocketHostOptions) =>
  Layer.unwrapEffect(
    Effect.gen(function* () {
      const startedAt = new Date().toISOString()
      // Counted by the server's connection events (Node callbacks), read by status and the idle check.
      const connections = { open: 0 }
      // Set once the server listens: only this socket is ever removed by this process.
      let bound: BoundSocket | undefined
      const stopWhenIdle = yield* Ref.make(false)

      const processLayer = Layer.effect(
        HostProcess,
        Effect.map(AgentHost, (agent) =>
          HostProcess.of({
            status: Effect.map(agent.working, (working) => ({
              version: packageVersion(),
              pid: process.pid,
              startedAt,
              clients: connections.open,
              working: [...working],
              idleExitSeconds: options.idleExit,
              sandbox: options.sandbox,
              configDir: options.configDir
            })),
            stop: (when: StopWhen) => (when === "now" ? Deferred.succeed(options.done, undefined) : Ref.set(stopWhenIdle, true))
          })
        )
      )

      /** Done when asked to stop once idle and no turn runs, or unused for `idleExit` seconds. */
      const watcher = Layer.scopedDiscard(
        Effect.gen(function* () {
          const agent = yield* AgentHost
          let idleSince: number | undefined
          const check = Effect.gen(function* () {
            const working = (yield* agent.working).size
            // Another process's socket at the path (or none): no client reaches this host any more.
            if (bound !== undefined && !isBound(claim.path, bound)) yield* Ref.set(stopWhenIdle, true)
            if ((yield* Ref.get(stopWhenIdle)) && working === 0) return true
            if (options.idleExit === 0 || working > 0 || connections.open > 0) {
              idleSince = undefined
              return false
            }
            idleSince ??= Date.now()
            return Date.now() - idleSince >= options.idleExit * 1000
          })
          yield* Effect.forkScoped(
            check.pipe(Effect.repeat({ schedule: Schedule.spaced(IDLE_CHECK), until: (done) => done }), Effect.zipRight(Deferred.succeed(options.done, undefined)))
          )
        })
      )

      // Listening: the socket is known by its inode, made 0600 (the data directory, 0700,
      // already keeps others out; the socket says so itself too), and the lock goes.
      const settle = Layer.effectDiscard(
        Effect.try({
          try: () => {
            bound = socketAt(claim.path)
            chmodSync(claim.path, 0o600)
          },
          catch: (error) => new CliError({ message: `cannot restrict ${claim.path}: ${String(error)}`, cause: error })
        }).pipe(Effect.ensuring(claim.lock.release))
      )
      // Acquired first, so released last: after the server has closed. Only the socket this
      // process bound, under the lock: a host that failed to bind, or whose path another host
      // took since, removes nothing.
      const removal = Layer.scopedDiscard(
        Effect.addFinalizer(() =>
          Effect.gen(function* () {
            yield* claim.lock.release
            const socket = bound
            if (socket === undefined) return
            const lock = yield* acquireHostLock(dirname(claim.path), REMOVAL_LOCK_WAIT)
            if (isBound(claim.path, socket)) rmSync(claim.path, { force: true })
            yield* lock.release
          }).pipe(Effect.catchAll(() => Effect.void))
        )
      )

      /**
       * A session that starts waiting for an answer while no client follows it raises a desktop
       * notification (`"notifications": false` in settings.json turns it off). Its questions are
       * heard on the fan-out, as they are committed (the observer only queues them); only a host
       * with its own fan-out (not a cluster's runner) knows who follows a session.
       */
      const notices = Layer.scopedDiscard(
        Effect.gen(function* () {
          const fanout = yield* Effect.serviceOption(Fanout)
          if (Option.isNone(fanout)) return
          const notifier = yield* Notifier
          const changes = yield* Queue.unbounded<QuestionChange>()
          yield* fanout.value.observe((sessionId, frame) => {
            const change = questionChange(sessionId, frame)
            if (change !== undefined) Queue.unsafeOffer(changes, change)
          })
          yield* Effect.forkScoped(
            watchWaiting({
              changes: Stream.fromQueue(changes),
              followers: fanout.value.followers,
              enabled: notificationsOn(userSettingsFile(options.configDir)),
              notify: notifier.notify
            })
          )
        })
      ).pipe(Layer.provide(desktopNotifierLayer))

      const server = socketServerLayer({
        path: claim.path,
        token: followKeptToken(claim.token),
        onConnections: (open) => {
          connections.open = open
        }
      })
      return Layer.mergeAll(settle, watcher, notices).pipe(Layer.provideMerge(server), Layer.provide(processLayer), Layer.provide(removal))
    })
  )
