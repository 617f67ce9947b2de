import type { Terminal } from "@mariozechner/pi-tui"
import { randomUUID } from "node:crypto"
import { resolve } from "node:path"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as FiberSet from "effect/FiberSet"
import * as Option from "effect/Option"
import { pulledUntil } from "../../core/for-each-pulled.js"
import type { AgentEvent, EventOf, MessageMode } from "../../domain/events.js"
import type { HostFrame } from "../../domain/host.js"
import type { PermissionMode } from "../../domain/permissions.js"
import type { SlashCommandList } from "../../domain/slash-commands.js"
import { titleOf } from "../../domain/session-title.js"
import { answerClientLabel } from "../../domain/answer-client.js"
import { type AttachOptions, attachFiles } from "../prompt-attachments.js"
import type { Choice } from "./choice-list.js"
import { handOverEarlyFrame } from "../early-frame-handle.js"
import { followSession } from "./follow.js"
import { FrameWatchingTerminal } from "./frame-watch.js"
import { keyAction, nextMode, onInterrupt } from "./keys.js"
import { type CardAnswer, PermissionCard, requestOf } from "./permission-card.js"
import { PlanCard } from "./plan-card.js"
import { safeInline } from "./safe-text.js"
import { confirmOtherWorkspace } from "./other-workspace.js"
import { makeScreen } from "./screen.js"
import type { SessionClient } from "./session-client.js"
import { builtinCommands, knownCommands, parseTyped, type SlashCommandSpec } from "./slash.js"
import { runSlashCommand, type SessionActions } from "./slash-actions.js"
import { hintLine, statusLine } from "./status-line.js"
import { makeTheme } from "./theme.js"
import { Timeline, type Tone } from "./timeline.js"
import { fit } from "./block-lines.js"

/** Recorded as who answered, changed a mode, sent a message: this terminal. */
const CLIENT = "cli"

/** How long quitting waits for the running turn's cancel to be acknowledged (a server may be gone). */
const cancelBound = Duration.seconds(5)

/** How long the session waits for its first frame before it reads a session's history: only a guard. */
const firstFrameBound = Duration.seconds(1)

/** Which session the terminal opens with. */
export type Opening = { readonly _tag: "New" } | { readonly _tag: "Resume"; readonly sessionId: string } | { readonly _tag: "Pick" }

export interface AppConfig {
  readonly client: SessionClient
  readonly cwd: string
  readonly color: boolean
  readonly opening: Opening
  /** `--model`'s id: a new session's model, or set as a resumed session's when it opens. */
  readonly model: string | undefined
  /** What a new session gets when nothing names a model (shown until one exists). */
  readonly defaultModel: string | undefined
  readonly mode: PermissionMode | undefined
  /** Lines to show first (a model notice). */
  readonly notices: ReadonlyArray<{ readonly text: string; readonly tone: Tone }>
  readonly attach: Omit<AttachOptions, "cwd">
  /** The workspace's agents and hooks, as the listing commands print them. */
  readonly listings: SessionActions["listings"]
  readonly version: string
  /** For tests: a terminal other than the process's. */
  readonly terminal?: Terminal
}

/**
 * What the session leaves behind, for the line printed once the screen is gone: how it was
 * left (quit, or detached with Ctrl+X) and what became of a turn still running then.
 */
export interface AppExit {
  readonly sessionId: string | undefined
  readonly left: "quit" | "detached"
  readonly turn: "none" | "cancelled" | "uncancelled" | "running"
}

/**
 * The interactive session: the conversation drawn live from the session's events, an editor
 * to write the next message, the session's questions asked in place, and slash commands. A
 * client of the host like `run` (through `SessionClient`): it decides nothing the host decides.
 */
export const runApp = (config: AppConfig): Effect.Effect<AppExit, unknown> =>
  Effect.scoped(
    Effect.gen(function* () {
      const { client } = config
      const run = yield* FiberSet.makeRuntime<never, unknown, unknown>()
      const quit = yield* Deferred.make<void>()
      const serial = yield* Effect.makeSemaphore(1)
      const theme = makeTheme(config.color)
      let commands: ReadonlyArray<SlashCommandSpec> = builtinCommands

      let sessionId: string | undefined
      /** The open session's own workspace (where it was started, whichever folder opened it); a new session's is this folder. */
      let workspace = config.cwd
      let timeline = new Timeline()
      let follower: Fiber.RuntimeFiber<unknown, unknown> | undefined
      /** The last event of the session's history when it was opened: later ones are live. */
      let historyEnd = 0
      /** A model chosen while no session is open: the new session is created with it (or a resumed one set to it when it opens). */
      let chosenModel = config.model
      let pendingMode = config.mode
      let lastInterruptAt: number | undefined
      /** A field, not a local: set by a key's callback, read after the wait. */
      const leaving: { how: AppExit["left"] } = { how: "quit" }
      /** The turn runs in a process that goes on without this terminal (the local host, a server). */
      const detachable = client.host !== "here"
      let message: { readonly text: string; readonly until: number } | undefined
      const answeredHere = new Set<string>()
      const children = new Map<string, Fiber.RuntimeFiber<unknown, unknown>>()

      const currentMode = (): PermissionMode => (sessionId === undefined ? (pendingMode ?? "default") : timeline.state.mode)
      // The session's, as its events say; before one exists, the one it will be created with.
      const currentModel = (): string | undefined => (sessionId === undefined ? (chosenModel ?? config.defaultModel) : timeline.state.model)

      const firstFrame = yield* Deferred.make<void>()
      const screen = makeScreen({
        theme,
        cwd: config.cwd,
        commands,
        terminal: config.terminal ?? new FrameWatchingTerminal(() => Deferred.unsafeDone(firstFrame, Effect.void)),
        // Drawn once at the top: it scrolls away with the conversation, so it never changes.
        header: (width) => [
          fit(`${theme.bold("custom-agent")} ${theme.dim(`${config.version} · ${safeInline(config.cwd)}${client.server !== undefined ? ` · ${safeInline(client.server)}` : client.host === "local" ? " · local host" : ""}`)}`, width)
        ],
        footer: (width) => {
          const now = Date.now()
          const status = statusLine(theme, timeline.state, {
            model: currentModel(),
            mode: currentMode(),
            ...(resolve(workspace) === resolve(config.cwd) ? {} : { elsewhere: workspace }),
            now
          })
          const second = message !== undefined && message.until > now ? theme.yellow(message.text) : hintLine(theme, timeline.state.running, detachable)
          return [fit(status, width), fit(second, width)]
        },
        live: () => timeline.state,
        onSubmit: (text) => submit(text, "queue"),
        onKey: (data) => onKey(data)
      })

      const render = () => {
        screen.setSpinner(timeline.state.running && !screen.hasCards() ? "working… (esc to cancel)" : undefined)
        screen.render()
      }
      const note = (text: string, tone: Tone = "dim") => {
        timeline.note(text, tone)
        render()
      }
      const flash = (text: string) => {
        message = { text, until: Date.now() + 3000 }
        render()
      }
      /** Runs an action of the session in the background; a failure is said in the conversation. */
      const act = (effect: Effect.Effect<unknown, unknown>) =>
        run(effect.pipe(Effect.catchAllCause((cause) => Effect.sync(() => note(describeCause(cause), "error")))))
      const describeCause = (cause: Cause.Cause<unknown>): string =>
        Option.match(Cause.failureOption(cause), { onSome: client.describe, onNone: () => Cause.pretty(cause) })

      // Questions --------------------------------------------------------------------------

      /** Sends the card's answer; a refused one (the host found it outside the question's offers) puts the question back. */
      const answer = (toolCallId: string, answered: CardAnswer, askAgain: () => void) => {
        const id = sessionId
        if (id === undefined) return
        answeredHere.add(toolCallId)
        screen.removeCard(toolCallId)
        render()
        act(
          client.respondPermission(id, toolCallId, { ...answered, client: CLIENT }).pipe(
            Effect.flatMap((heard) => (heard ? Effect.void : Effect.sync(() => note("(another client answered first)")))),
            Effect.tapError(() =>
              Effect.sync(() => {
                answeredHere.delete(toolCallId)
                if (id === sessionId) askAgain()
              })
            )
          )
        )
      }

      const askPermission = (event: EventOf<"permission.requested">) =>
        screen.addCard(new PermissionCard(requestOf(event), theme, (answered) => answer(event.payload.toolCallId, answered, () => askPermission(event))))
      const askPlan = (toolCallId: string) => screen.addCard(new PlanCard(toolCallId, theme, (answered) => answer(toolCallId, answered, () => askPlan(toolCallId))))

      const onQuestion = (event: AgentEvent) => {
        // A question that comes while the session is open (not one the history shows) rings.
        if ((event.type === "permission.requested" || event.type === "plan.proposed") && event.sequence > historyEnd) screen.bell()
        if (event.type === "permission.requested") {
          askPermission(event)
        } else if (event.type === "plan.proposed") {
          askPlan(event.payload.toolCallId)
        } else if (event.type === "permission.resolved" || event.type === "plan.resolved") {
          const id = event.payload.toolCallId
          const shown = screen.removeCard(id)
          if (shown && !answeredHere.has(id) && event.sequence > historyEnd) {
            const verdict = event.type === "permission.resolved" ? event.payload.decision : event.payload.decision
            const where = answerClientLabel(event.payload.client)
            note(`question withdrawn: ${verdict === "allow" ? "allowed" : verdict} by ${event.payload.by}${where === undefined ? "" : `, ${where}`}`, "info")
          }
        } else if (event.type === "turn.completed") {
          // A turn that ended asks nothing any more.
          screen.clearCards()
        }
      }

      // Following the session -----------------------------------------------------------------

      const followChild = (childSessionId: string) => {
        if (children.has(childSessionId)) return
        const owner = timeline
        const fiber = run(
          pulledUntil(client.subscribe(childSessionId, 0), (frame) =>
            Effect.sync(() => {
              if (frame._tag !== "Event") return false
              owner.applyChild(childSessionId, frame.event)
              render()
              return frame.event.type === "turn.completed"
            })
          ).pipe(Effect.catchAll(() => Effect.sync(() => note("(a subagent's steps cannot be followed here; its answer follows)"))))
        )
        children.set(childSessionId, fiber)
      }

      const onEvent = (event: AgentEvent) => {
        timeline.apply(event)
        onQuestion(event)
        // Each subagent's own session is read for its tool calls, shown under its task call (a
        // finished one's replay ends at its turn's end).
        if (event.type === "subagent.started") followChild(event.payload.childSessionId)
      }

      const onFrame = (forSession: string) => (frame: HostFrame) =>
        Effect.sync(() => {
          if (forSession !== sessionId) return true
          switch (frame._tag) {
            case "Baseline":
              if (historyEnd === 0) historyEnd = frame.session.lastSequence
              timeline.state.running = frame.session.running
              break
            case "Status":
              timeline.state.running = frame.running
              break
            case "Event":
              onEvent(frame.event)
              break
            case "KeepAlive":
              break
          }
          render()
          return false
        })

      /** Shows `id` (or a new session, for undefined) from here on; the one shown before stays above. */
      const open = (id: string | undefined) =>
        Effect.gen(function* () {
          // A session keeps its own workspace: one of another folder is opened only once the person said so, its trust decided as if started there.
          const view = id === undefined ? undefined : yield* client.getSession(id)
          const elsewhere = view !== undefined && resolve(view.cwd) !== resolve(config.cwd)
          if (view !== undefined && elsewhere && !(yield* confirmOtherWorkspace({ client, here: config.cwd, note, choose: actions.choose }, view.sessionId, view.cwd))) return
          if (follower !== undefined) yield* Fiber.interrupt(follower)
          for (const fiber of children.values()) yield* Fiber.interrupt(fiber)
          children.clear()
          screen.clearCards()
          sessionId = id
          const before = workspace
          workspace = view?.cwd ?? config.cwd
          historyEnd = 0
          if (timeline.blocks.length > 0 || id !== undefined) {
            timeline = new Timeline()
            screen.addTimeline(timeline)
          }
          // The commands a prompt can run are its workspace's: read again when that changed.
          if (resolve(before) !== resolve(workspace)) {
            yield* refreshCommands.pipe(Effect.catchAll((error) => Effect.sync(() => note(`the workspace's command files cannot be listed: ${client.describe(error)}`, "warn"))))
          }
          if (id === undefined) return yield* Effect.sync(() => note("── new session: it starts with your first message", "info"))
          timeline.note(`── session ${id}${elsewhere ? ` · works in ${view.cwd}` : ""}`, elsewhere ? "warn" : "info")
          follower = run(
            followSession(client, id, 0, {
              onFrame: onFrame(id),
              onConnection: (attempt, last) =>
                Effect.sync(() =>
                  attempt === 0 ? note("reconnected") : attempt === 1 ? note(`connection to the server lost; reconnecting from event ${last}…`, "warn") : undefined
                )
            }).pipe(Effect.catchAll((error) => Effect.sync(() => note(`the session's events stopped: ${client.describe(error)}`, "error"))))
          )
          if (pendingMode !== undefined) {
            const mode = pendingMode
            pendingMode = undefined
            yield* client.setMode(id, mode)
          }
          if (chosenModel !== undefined) {
            const model = chosenModel
            chosenModel = undefined
            yield* client.setModel(id, model)
          }
          render()
        })

      // Writing --------------------------------------------------------------------------------

      const ensureSession = (text: string) =>
        Effect.gen(function* () {
          if (sessionId !== undefined) return { id: sessionId, created: false }
          const model = chosenModel
          const view = yield* client.createSession({ cwd: config.cwd, title: titleOf(text), ...(model === undefined ? {} : { model }) })
          // The session was created with it: recorded in its first event, not as a change.
          chosenModel = undefined
          // Opening it records a mode chosen before it existed.
          yield* open(view.sessionId)
          return { id: view.sessionId, created: true }
        })

      const send = (text: string, mode: MessageMode) =>
        Effect.gen(function* () {
          const attached = attachFiles(text, { cwd: config.cwd, ...config.attach })
          for (const line of attached.notes) note(line)
          const { id } = yield* ensureSession(text)
          const permissionMode = pendingMode
          yield* client.prompt({
            sessionId: id,
            content: attached.content,
            ...(attached.attached.length === 0 ? {} : { attached: attached.attached }),
            mode,
            requestId: randomUUID(),
            ...(permissionMode === undefined ? {} : { permissionMode })
          })
          if (pendingMode === permissionMode) pendingMode = undefined
          render()
        })

      const actions: SessionActions = {
        client,
        cwd: config.cwd,
        workspace: () => workspace,
        sessionId: () => sessionId,
        timeline: () => timeline,
        note,
        choose: <A>(title: string, choices: ReadonlyArray<Choice<A>>, filterable: boolean) =>
          Effect.async<A | undefined>((resume) => {
            screen.choose(title, choices, filterable, (value) => resume(Effect.succeed(value)))
          }),
        open,
        model: currentModel,
        // The session's at once (its next turn asks it); before one exists, the one it is created with.
        setModel: (id) =>
          sessionId === undefined
            ? Effect.sync(() => {
                chosenModel = id
                note(`model: ${id} (the new session's, from your first message)`)
              })
            : client.setModel(sessionId, id),
        mode: currentMode,
        setMode: (mode) =>
          sessionId === undefined
            ? Effect.sync(() => {
                pendingMode = mode
                note(`mode: ${mode} (from your first message)`)
              })
            : client.setMode(sessionId, mode),
        commands: () => commands,
        listings: config.listings,
        quit: () => Deferred.unsafeDone(quit, Effect.void)
      }

      /** The workspace's command files, read again (they may have changed): offered after `/`, listed by /help. */
      const takeCommands = (found: SlashCommandList) => {
        commands = knownCommands(found.commands)
        screen.completion.setCommands(commands)
        for (const problem of found.problems) {
          if (reportedProblems.has(problem.path)) continue
          reportedProblems.add(problem.path)
          timeline.note(`command file ${problem.path}: ${problem.message}`, "warn")
        }
      }
      const refreshCommands = Effect.suspend(() => Effect.map(client.listCommands(workspace), takeCommands))
      const reportedProblems = new Set<string>()

      const submit = (text: string, mode: MessageMode) => {
        if (text.trim() === "") return
        screen.editor.addToHistory(text)
        const steering = timeline.state.running ? mode : "queue"
        // Commands run one after another, in the order typed; a name not known yet is looked
        // for again among the command files before it is refused.
        act(
          serial.withPermits(1)(
            Effect.gen(function* () {
              let typed = parseTyped(text, commands.map((command) => command.name))
              if (typed._tag === "Unknown") {
                yield* refreshCommands
                typed = parseTyped(text, commands.map((command) => command.name))
              }
              if (typed._tag === "Unknown") {
                return note(`/${typed.name} is not a command here${typed.suggestion === undefined ? "" : `; did you mean /${typed.suggestion}?`} (/help lists them; nothing was sent)`, "warn")
              }
              if (typed._tag === "Prompt") return yield* send(text, steering)
              const name = typed.name
              const custom = commands.find((command) => command.name === name && command.source !== undefined)
              // A command file's command goes to the host as typed: the host expands it and records both.
              if (custom !== undefined) return yield* send(typed.args === "" ? `/${name}` : `/${name} ${typed.args}`, steering)
              if (name === "help") yield* Effect.ignore(refreshCommands)
              yield* runSlashCommand(actions, name, typed.args)
            }).pipe(Effect.ensuring(Effect.sync(render)))
          )
        )
      }

      // Keys ----------------------------------------------------------------------------------

      const onKey = (data: string): boolean => {
        const action = keyAction(data, { running: timeline.state.running, completing: screen.editor.isShowingAutocomplete() })
        switch (action) {
          case "interrupt": {
            // A list being picked from takes its own Ctrl-C (it leaves the list).
            if (screen.choosing()) return false
            const now = Date.now()
            const outcome = onInterrupt({ now, lastAt: lastInterruptAt, editorEmpty: screen.editor.getText() === "" })
            lastInterruptAt = outcome === "clearEditor" ? undefined : now
            if (outcome === "clearEditor") screen.editor.setText("")
            else if (outcome === "warn") flash(detachable && timeline.state.running ? "press ctrl+c again to quit and cancel the turn · ctrl+x leaves it running" : "press ctrl+c again to quit")
            else Deferred.unsafeDone(quit, Effect.void)
            render()
            return true
          }
          case "cancelTurn": {
            if (screen.choosing()) return false
            const id = sessionId
            if (id === undefined) return false
            act(Effect.zipRight(client.cancel(id), Effect.sync(() => flash("cancelling the turn…"))))
            return true
          }
          case "cycleMode": {
            const mode = nextMode(currentMode())
            act(actions.setMode(mode))
            if (sessionId !== undefined) flash(`mode: ${mode}`)
            return true
          }
          case "steer": {
            if (!screen.editorHasFocus()) return false
            const text = screen.editor.getExpandedText().trim()
            if (text === "") return true
            screen.editor.setText("")
            submit(text, "steer")
            return true
          }
          case "detach": {
            if (!detachable) {
              flash("this session runs in this process: its turn ends with it (--no-host, --script or a host not used)")
              render()
              return true
            }
            leaving.how = "detached"
            Deferred.unsafeDone(quit, Effect.void)
            return true
          }
          case "expandDetail":
            if (!timeline.expandLast()) flash("no tool call to show yet")
            render()
            return true
          case "none":
            return false
        }
      }

      // Start ---------------------------------------------------------------------------------

      screen.addTimeline(timeline)
      for (const notice of config.notices) timeline.note(notice.text, notice.tone)
      // The running turn's elapsed time moves on even while nothing else is drawn (a question waits).
      yield* Effect.acquireRelease(
        Effect.sync(() => setInterval(() => (timeline.state.running ? screen.render() : undefined), 1000)),
        (ticker) => Effect.sync(() => clearInterval(ticker))
      )
      // Read before the editor takes keys, so the first `/` offers them.
      yield* Effect.match(client.listCommands(config.cwd), {
        onSuccess: takeCommands,
        onFailure: (error) => timeline.note(`the workspace's command files cannot be listed: ${client.describe(error)}`, "warn")
      })
      yield* Effect.acquireRelease(
        Effect.sync(() => {
          // The launcher's frame, if it drew one, goes in the block this screen's first frame closes.
          handOverEarlyFrame()
          screen.start()
        }),
        () => Effect.sync(() => screen.stop())
      )
      // The screen is up before a session's history is read (a long one takes a while).
      if (config.terminal === undefined) yield* Effect.ignore(Effect.timeout(Deferred.await(firstFrame), firstFrameBound))
      const opening = config.opening
      if (opening._tag === "Resume") yield* open(opening.sessionId).pipe(Effect.catchAll((error) => Effect.sync(() => note(client.describe(error), "error"))))
      if (opening._tag === "Pick") act(runSlashCommand(actions, "resume", ""))

      render()
      yield* Deferred.await(quit)
      const left = leaving.how
      const running = sessionId !== undefined && timeline.state.running ? sessionId : undefined
      if (running === undefined) return { sessionId, left, turn: "none" } satisfies AppExit
      if (left === "detached") return { sessionId, left, turn: "running" } satisfies AppExit
      // Quitting ends the turn wherever it runs (in this process it would die with it): the cancel
      // is asked first, so the log says so. Ctrl+X is the way to leave it running.
      const cancelled = yield* Effect.either(Effect.timeoutFail(client.cancel(running), { duration: cancelBound, onTimeout: () => "timed out" }))
      return { sessionId, left, turn: cancelled._tag === "Right" ? "cancelled" : "uncancelled" } satisfies AppExit
    })
  )
