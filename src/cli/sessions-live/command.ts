import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { SessionListItem } from "../../domain/host.js"
import { resolveDataDir } from "../../app/locations.js"
import type { LocalHost } from "../host/connect.js"
import { openingArgs } from "../interactive/options.js"
import { stderr, stdout, useColor } from "../io.js"
import { describeTransport, remoteLayer } from "../remote.js"
import type { Where } from "../session-args.js"
import { jsonText, term } from "../terminal-text.js"
import { clientSource, type LiveExit, type LiveSource, processTerminal, runLiveView, storeSource, terminalNotifier } from "./live.js"
import { applyFrame, initialState, listedSessions } from "./model.js"
import { onceListing } from "./screen.js"

export interface LiveArgs extends Where {
  readonly limit: number
  readonly json: boolean
  readonly once: boolean
  /** Terminal notifications (OSC 9 and the bell) when a session starts waiting: off in settings.json. */
  readonly notify: boolean
}

/** Where the list comes from: `--server`'s API, the local host's when one runs, else the store. */
interface Found {
  readonly host: LocalHost | undefined
  /** Why the host was not used, said once. */
  readonly note: string | undefined
}

const findHost = (dataDir: string): Effect.Effect<Found> =>
  Effect.flatMap(
    Effect.promise(() => import("../host/connect.js")),
    (connect) =>
      connect.runningHost(dataDir).pipe(
        Effect.map((host): Found => ({ host, note: undefined })),
        Effect.catchAll((error) => Effect.succeed<Found>({ host: undefined, note: `${error.message}; showing the store` }))
      )
  )

/** Runs `use` with the view's source, its client open meanwhile. */
const withSource = <A>(
  args: LiveArgs,
  storeList: (use: (list: Effect.Effect<ReadonlyArray<SessionListItem>, unknown>) => Effect.Effect<A, unknown>) => Effect.Effect<A, unknown>,
  use: (source: LiveSource, found: Found) => Effect.Effect<A, unknown>
): Effect.Effect<A, unknown> => {
  if (Option.isSome(args.server)) {
    const url = args.server.value
    return Effect.flatMap(clientSource(`server ${url}`), (source) => use(source, { host: undefined, note: undefined })).pipe(
      describeTransport(url),
      Effect.provide(remoteLayer(url, args.tokenFile))
    )
  }
  const dataDir = resolveDataDir(Option.getOrUndefined(args.dataDir))
  return Effect.flatMap(findHost(dataDir), (found) => {
    const host = found.host
    if (host === undefined) return storeList((list) => use(storeSource(list), found))
    return Effect.flatMap(Effect.promise(() => import("../host/use-host.js")), (local) =>
      Effect.flatMap(clientSource("local host"), (source) => use(source, found)).pipe(local.describeLocalHost(dataDir), Effect.provide(local.localHostClient(host)))
    )
  })
}

/** The interactive session on `sessionId`, as `attach` opens it (through the host when one runs, else as `--session` does). */
const attachTo = (args: LiveArgs, sessionId: string): Effect.Effect<void, unknown> =>
  Effect.gen(function* () {
    const interactive = openingArgs({
      continueLast: false,
      session: Option.some(sessionId),
      dataDir: args.dataDir,
      store: args.store,
      server: args.server,
      tokenFile: args.tokenFile
    })
    const start = yield* Effect.promise(() => import("../interactive/start.js"))
    if (Option.isSome(args.server)) return yield* start.startInteractive(interactive)
    const dataDir = resolveDataDir(Option.getOrUndefined(args.dataDir))
    const { host } = yield* findHost(dataDir)
    return yield* host === undefined ? start.startInteractive(interactive) : start.onLocalHost(interactive, dataDir, host)
  })

const width = () => (process.stdout.isTTY === true && process.stdout.columns > 0 ? process.stdout.columns : 80)

/**
 * `custom-agent sessions`: every workspace's sessions that run, wait for an answer, failed or
 * are done (recent first). On a terminal it stays open and follows them live; piped, or with
 * `--once` or `--json`, it prints them once.
 */
export const sessionsView = (
  args: LiveArgs,
  storeList: <A>(use: (list: Effect.Effect<ReadonlyArray<SessionListItem>, unknown>) => Effect.Effect<A, unknown>) => Effect.Effect<A, unknown>
): Effect.Effect<void, unknown> => {
  const live = !args.json && !args.once && process.stdin.isTTY === true && process.stdout.isTTY === true
  const look = { color: useColor(process.stdout), home: process.env["HOME"], limit: args.limit }
  if (!live) {
    return withSource<void>(args, storeList, (source, found) =>
      Effect.gen(function* () {
        if (found.note !== undefined) yield* stderr(term`${found.note}\n`)
        const state = applyFrame(initialState(false), { _tag: "Snapshot", sessions: yield* source.list }, args.limit)
        if (args.json) return yield* stdout(jsonText(`${JSON.stringify(listedSessions(state, args.limit))}\n`))
        yield* stdout(onceListing(state, width(), { ...look, now: Date.now(), source: source.name }))
      })
    )
  }
  return Effect.gen(function* () {
    while (true) {
      const chosen = yield* withSource<LiveExit>(args, storeList, (source, found) =>
        Effect.scoped(
          Effect.flatMap(processTerminal, (terminal) =>
            runLiveView(source, terminal, look, args.notify ? terminalNotifier(terminal.draw) : () => Effect.void, found.note)
          )
        )
      )
      if (Option.isNone(chosen)) return
      // The view is off the screen: the session opens as `attach` opens it, and the view comes back when it closes.
      yield* attachTo(args, chosen.value)
    }
  })
}
