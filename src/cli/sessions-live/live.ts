import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import type { PendingPermission, SessionListFrame, SessionListItem } from "../../domain/host.js"
import type * as Scope from "effect/Scope"
import { AgentClient, describeClientError } from "../../rpc/client.js"
import { stdout } from "../io.js"
import { alternateScreen, screenFrame, terminalNotification } from "../terminal-text.js"
import { type Action, applyFrame, asked, initialState, keysOf, type LiveState, newlyWaiting, pressKey } from "./model.js"
import { type Look, liveScreen, type ScreenSize } from "./screen.js"

/** Where the live view's list comes from, and how it answers a question. */
export interface LiveSource {
  /** Said in the heading: `local host`, `store`, `server URL`. */
  readonly name: string
  readonly frames: Stream.Stream<SessionListFrame, unknown>
  /** The whole list now: what the view prints once. */
  readonly list: Effect.Effect<ReadonlyArray<SessionListItem>, unknown>
  /** Undefined where nothing can answer (the store alone: a question waits in the process that runs its turn). */
  readonly answers:
    | {
        readonly question: (sessionId: string) => Effect.Effect<PendingPermission | undefined, unknown>
        readonly respond: (sessionId: string, toolCallId: string, decision: "allow" | "deny") => Effect.Effect<void, unknown>
      }
    | undefined
}

/** A host's or a server's API: its `WatchSessions`, and the question answered with `RespondPermission`. */
export const clientSource = (name: string) =>
  Effect.map(
    AgentClient,
    (client): LiveSource => ({
      name,
      frames: client.WatchSessions(),
      list: client.ListSessions(),
      answers: {
        question: (sessionId) => Effect.map(client.GetSession({ sessionId }), (view) => view.pendingPermissions[0]),
        respond: (sessionId, toolCallId, decision) => client.RespondPermission({ sessionId, toolCallId, answer: { decision, scope: "once", by: "user" } })
      }
    })
  )

/** How often the store is read again when no host tells the view what changed. */
const STORE_POLL = Duration.seconds(1)

/** The store alone: its listing read again every second. */
export const storeSource = (list: Effect.Effect<ReadonlyArray<SessionListItem>, unknown>): LiveSource => ({
  name: "store",
  frames: Stream.repeatEffectWithSchedule(
    Effect.map(list, (sessions): SessionListFrame => ({ _tag: "Snapshot", sessions })),
    Schedule.spaced(STORE_POLL)
  ),
  list,
  answers: undefined
})

/** What the view needs of the terminal; the command gives the process's, tests a fake. */
export interface LiveTerminal {
  /** Chunks of input, as the terminal sends them in raw mode. */
  readonly input: Stream.Stream<string>
  /** One element per resize. */
  readonly resized: Stream.Stream<void>
  readonly size: () => ScreenSize
  readonly draw: (screen: ReturnType<typeof screenFrame>) => Effect.Effect<void>
}

type Input =
  | { readonly _tag: "Frame"; readonly frame: SessionListFrame }
  | { readonly _tag: "Input"; readonly chunk: string }
  | { readonly _tag: "Redraw" }
  | { readonly _tag: "Asked"; readonly sessionId: string; readonly question: PendingPermission | undefined }
  | { readonly _tag: "Note"; readonly note: string }

/** What the view ended with: the session to open, or none (quit). */
export type LiveExit = Option.Option<string>

/** The relative times move on even when nothing else does. */
const TICK = Duration.seconds(20)

/**
 * The live view until a key quits it or opens a session: the list redrawn on every change the
 * source reports, a key moving the selection, opening the selected session (the caller attaches
 * to it) or answering its question, and `notify` told of each session that starts waiting.
 */
export const runLiveView = (
  source: LiveSource,
  terminal: LiveTerminal,
  look: Omit<Look, "now" | "source">,
  notify: (waiting: ReadonlyArray<SessionListItem>) => Effect.Effect<void>,
  /** Shown under the list until a key replaces it: why the view reads the store, say. */
  note?: string
): Effect.Effect<LiveExit> =>
  Effect.scoped(
    Effect.gen(function* () {
      const inputs = yield* Queue.unbounded<Input>()
      const offer = (input: Input) => Queue.offer(inputs, input)
      yield* Stream.runForEach(source.frames, (frame) => offer({ _tag: "Frame", frame })).pipe(
        Effect.catchAll((error) => offer({ _tag: "Note", note: `the list stopped following ${source.name}: ${describeClientError(error)} (q quits)` })),
        Effect.forkScoped
      )
      yield* Stream.runForEach(terminal.input, (chunk) => offer({ _tag: "Input", chunk })).pipe(Effect.forkScoped)
      yield* Stream.runForEach(Stream.merge(terminal.resized, Stream.tick(TICK)), () => offer({ _tag: "Redraw" })).pipe(Effect.forkScoped)

      const limit = look.limit
      const draw = (state: LiveState) => terminal.draw(screenFrame(liveScreen(state, terminal.size(), { ...look, now: Date.now(), source: source.name })))
      const perform = (action: Action): Effect.Effect<LiveExit | undefined, never, Scope.Scope> => {
        switch (action._tag) {
          case "None":
            return Effect.succeed(undefined)
          case "Quit":
            return Effect.succeed(Option.none())
          case "Attach":
            return Effect.succeed(Option.some(action.sessionId))
          case "Ask": {
            const answers = source.answers
            if (answers === undefined) return Effect.succeed(undefined)
            return answers.question(action.sessionId).pipe(
              Effect.flatMap((question) => offer({ _tag: "Asked", sessionId: action.sessionId, question })),
              Effect.catchAll((error) => offer({ _tag: "Note", note: `cannot read the question of ${action.sessionId}: ${describeClientError(error)}` })),
              Effect.forkScoped,
              Effect.as(undefined)
            )
          }
          case "Respond": {
            const answers = source.answers
            if (answers === undefined) return Effect.succeed(undefined)
            return answers.respond(action.sessionId, action.toolCallId, action.decision).pipe(
              Effect.catchAll((error) => offer({ _tag: "Note", note: `the answer was not taken: ${describeClientError(error)}` })),
              Effect.forkScoped,
              Effect.as(undefined)
            )
          }
        }
      }

      let state: LiveState = { ...initialState(source.answers !== undefined), note }
      yield* draw(state)
      while (true) {
        const input = yield* Queue.take(inputs)
        switch (input._tag) {
          case "Frame": {
            const next = applyFrame(state, input.frame, limit)
            const waiting = newlyWaiting(state, next)
            state = next
            if (waiting.length > 0) yield* notify(waiting)
            break
          }
          case "Input":
            for (const key of keysOf(input.chunk)) {
              const pressed = pressKey(state, key, limit)
              state = pressed.state
              const exit = yield* perform(pressed.action)
              if (exit !== undefined) return exit
            }
            break
          case "Redraw":
            break
          case "Asked":
            state = asked(state, input.sessionId, input.question)
            break
          case "Note":
            state = { ...state, note: input.note }
            break
        }
        yield* draw(state)
      }
    })
  )

/**
 * The process's terminal for the view: raw input, the alternate screen (the scrollback is left
 * as it was), and everything restored when the view ends, however it ends.
 */
export const processTerminal: Effect.Effect<LiveTerminal, never, Scope.Scope> = Effect.gen(function* () {
  const stdin = process.stdin
  const out = process.stdout
  yield* Effect.acquireRelease(
    Effect.zipRight(
      Effect.sync(() => {
        stdin.setRawMode(true)
        stdin.resume()
      }),
      stdout(alternateScreen.enter)
    ),
    () =>
      Effect.zipRight(
        stdout(alternateScreen.leave),
        Effect.sync(() => {
          stdin.setRawMode(false)
          stdin.pause()
        })
      )
  )
  return {
    input: Stream.async<string>((emit) => {
      const onData = (data: Buffer) => void emit.single(data.toString("utf8"))
      stdin.on("data", onData)
      return Effect.sync(() => stdin.off("data", onData))
    }),
    resized: Stream.async<void>((emit) => {
      const onResize = () => void emit.single(undefined)
      out.on("resize", onResize)
      return Effect.sync(() => out.off("resize", onResize))
    }),
    size: () => ({ width: out.columns > 0 ? out.columns : 80, height: out.rows > 0 ? out.rows : 24 }),
    draw: (screen) => stdout(screen)
  }
})

/** The terminal's own notification (OSC 9 and the bell), naming the sessions that wait. */
export const terminalNotifier =
  (draw: (text: ReturnType<typeof terminalNotification>) => Effect.Effect<void>) =>
  (waiting: ReadonlyArray<SessionListItem>): Effect.Effect<void> => {
    const first = waiting[0]
    if (first === undefined) return Effect.void
    const what = first.title === undefined ? first.sessionId : `${first.title.slice(0, 80)} (${first.sessionId})`
    return draw(terminalNotification(waiting.length === 1 ? `${what} waits for an answer` : `${what} and ${waiting.length - 1} more wait for an answer`))
  }
