import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as FiberSet from "effect/FiberSet"
import * as Option from "effect/Option"
import { pulledUntil } from "../core/for-each-pulled.js"
import type { EventOf } from "../domain/events.js"
import type { HostFrame } from "../domain/host.js"
import * as PolicyApprovals from "../layers/approvals/policy.js"
import { workspaceMismatch } from "../host/session-workspace.js"
import { CliError } from "./errors.js"
import { stderr, useColor } from "./io.js"
import { continueElsewhere } from "./other-workspace-question.js"
import { makeTerminalApprovals } from "./permission-question.js"
import type { ApprovalAnswer, ApprovalRequest } from "../services/Approvals.js"
import { PLAN_TOOL } from "../domain/plan.js"
import type { TurnClient } from "./turn-client.js"
import { chosenModel, newSessionRequest, promptRequest } from "./turn-requests.js"
import { type DefaultModel, echoNotice } from "./model-notice.js"
import { interactive, makePrinter, onTerminal, type RunArgs } from "./turn-output.js"

/** How long Ctrl-C waits for the turn's cancel to be acknowledged before leaving anyway. */
const cancelBound = Duration.seconds(5)
/** How long a subagent's last steps may take to arrive after its parent heard its answer. */
const childSettleBound = Duration.seconds(2)

/** Reconnections in a row before a dropped subscription is given up (about a minute of pauses). */
const maxReconnects = 15

const reconnectPause = (attempt: number) => Duration.millis(Math.min(250 * 2 ** (attempt - 1), 5_000))

/** A question asked with nobody at a terminal and no --approve policy: denied, saying why. */
const noTerminal = {
  decision: "deny",
  scope: "once",
  by: "policy",
  reason: "no terminal to ask on (pass --approve to decide without one)"
} as const

/** A plan proposed with nobody at a terminal: not approved, and no --approve policy could change that. */
const noTerminalForPlan = {
  decision: "deny",
  scope: "once",
  by: "policy",
  reason: "no terminal to ask on, and only a person can approve a plan (run on a terminal, or answer it from a client of `custom-agent serve`)"
} as const

/** The command that continues the session, for the line printed after Ctrl-C. */
export const continueHint = (sessionId: string, args: RunArgs) =>
  `session ${sessionId} · continue it with: custom-agent run --session ${sessionId}${Option.isSome(args.server) ? ` --server ${args.server.value}` : ""} "<next prompt>"`

/**
 * One turn as `run` drives it, in this process or on a server: subscribe, prompt, print the
 * turn, answer its permission questions (policy, or the person at the terminal, asked after
 * everything before the question is printed). Interrupting (Ctrl-C) cancels the turn.
 */
export const runTurn = <E>(client: TurnClient<E>, args: RunArgs, defaultModel: DefaultModel) =>
  Effect.scoped(Effect.gen(function* () {
    // The terminal view (and pi-tui, highlight.js under it) loads only for a person at a terminal.
    const liveView = onTerminal(args)
      ? (yield* Effect.promise(() => import("./live-view.js"))).terminalView({ out: useColor(process.stdout), err: useColor(process.stderr) })
      : undefined
    const printer = makePrinter(args.json, { requireOutput: Option.isSome(args.outputSchema), ...(liveView === undefined ? {} : { view: liveView }) })
    yield* Effect.addFinalizer(() => printer.close)
    const model = chosenModel(args)
    const view = Option.isSome(args.session) ? yield* client.getSession(args.session.value) : yield* client.createSession(newSessionRequest(args))
    const sessionId = view.sessionId
    // A session acts on its own folder: continued from elsewhere only when the person here says so (and decides on its trust).
    const mismatch = Option.isSome(args.session) ? workspaceMismatch(sessionId, view.cwd, process.cwd()) : undefined
    if (mismatch !== undefined) {
      if (!interactive()) return yield* new CliError({ message: `${mismatch} (cd ${view.cwd} first, or continue it on a terminal, which asks)` })
      const io = { input: process.stdin, output: process.stderr }
      const trust = Option.isNone(args.approve) ? client.trust : undefined
      const go = yield* continueElsewhere({ sessionId, workspace: view.cwd, here: process.cwd(), trust, io })
      if (!go) return yield* new CliError({ message: `session ${sessionId} was not continued (it works in ${view.cwd})` })
    }
    const after = Option.isSome(args.session) ? view.lastSequence : 0
    const notice = echoNotice({
      model: Option.getOrElse(model, () => view.model),
      explicit: Option.isSome(args.model) || Option.isSome(args.script),
      continued: args.session,
      defaultModel
    })
    if (notice !== undefined) yield* stderr(notice)
    const live = yield* Deferred.make<void>()
    // Known once the prompt is admitted; a turn's events may arrive before that.
    const ourTurn = yield* Deferred.make<string>()
    const terminal = makeTerminalApprovals({ input: process.stdin, output: process.stderr, color: useColor(process.stderr) })

    // A question at the terminal is asked on a fiber of its own, one at a time, so the session's
    // events keep coming meanwhile: one answered by another client withdraws it here.
    const questions = yield* FiberSet.make<void, E>()
    const oneQuestionAtATime = yield* Effect.makeSemaphore(1)
    const asking = new Map<string, Fiber.RuntimeFiber<void, E>>()

    const respond = (toolCallId: string, decided: ApprovalAnswer) =>
      Effect.gen(function* () {
        // The record says who answered: this client's policy (named in the reason) or the person here,
        // through the CLI (a server records `rpc:cli` instead: the transport names itself).
        const answer = {
          decision: decided.decision,
          scope: decided.scope,
          by: decided.by,
          client: "cli",
          ...(decided.reason === undefined ? {} : { reason: decided.reason }),
          ...(decided.mode === undefined ? {} : { mode: decided.mode }),
          ...(decided.note === undefined ? {} : { note: decided.note }),
          // What the person chose for a lasting answer; the host checks it is within the question's offers.
          ...(decided.cover === undefined ? {} : { cover: decided.cover })
        }
        const heard = yield* client.respondPermission(sessionId, toolCallId, answer)
        if (!heard) yield* stderr("(another client answered first)\n")
      })

    /** A question of our turn: answered by the policy, the person here, or nobody (denied, or left to the server's other clients). */
    const answer = (request: ApprovalRequest) =>
      Effect.gen(function* () {
        if (Option.isSome(args.approve)) return yield* respond(request.toolCallId, PolicyApprovals.answerFor(args.approve.value, request))
        if (!interactive()) {
          if (client.unanswered === "deny") return yield* respond(request.toolCallId, request.plan === undefined ? noTerminal : noTerminalForPlan)
          return yield* stderr(`waiting for a client of the server to answer the ${request.plan === undefined ? "permission question" : "plan"}…\n`)
        }
        const toolCallId = request.toolCallId
        const ask = oneQuestionAtATime.withPermits(1)(
          Effect.gen(function* () {
            const decided = yield* terminal.ask(request)
            // Answered here: from now on a resolution is this answer's, not a reason to withdraw.
            asking.delete(toolCallId)
            yield* respond(toolCallId, decided)
          })
        )
        asking.set(toolCallId, yield* FiberSet.run(questions, ask))
      })

    const askPermission = (event: EventOf<"permission.requested">, ours: boolean) =>
      Effect.gen(function* () {
        if (!ours || event.turnId === undefined) return
        const request: ApprovalRequest = {
          sessionId,
          turnId: event.turnId,
          toolCallId: event.payload.toolCallId,
          tool: event.payload.tool,
          risk: event.payload.risk,
          summary: event.payload.summary,
          input: undefined,
          firm: event.payload.firm === true,
          outsideWorkspace: event.payload.outsideWorkspace === true,
          ...(event.payload.detail === undefined ? {} : { detail: event.payload.detail }),
          ...(event.payload.lasting === undefined ? {} : { lasting: event.payload.lasting })
        }
        yield* answer(request)
      })

    /** A plan our turn proposed: the question is the plan's (a policy never approves one). */
    const askPlan = (event: EventOf<"plan.proposed">, ours: boolean) =>
      Effect.gen(function* () {
        if (!ours || event.turnId === undefined) return
        const { toolCallId, plan } = event.payload
        yield* answer({
          sessionId,
          turnId: event.turnId,
          toolCallId,
          tool: PLAN_TOOL,
          risk: "write",
          summary: "approve this plan and leave plan mode",
          input: undefined,
          firm: true,
          outsideWorkspace: false,
          plan
        })
      })

    /** A question this terminal still asks that another client answered: taken off the screen. */
    const withdraw = (toolCallId: string) =>
      Effect.suspend(() => {
        const fiber = asking.get(toolCallId)
        if (fiber === undefined) return Effect.void
        asking.delete(toolCallId)
        return Fiber.interrupt(fiber)
      })

    // Each subagent's session is followed while it runs, so its tool calls show as they happen.
    const children = new Map<string, Fiber.RuntimeFiber<void>>()
    const followers = yield* FiberSet.make<void>()
    const followChild = (childSessionId: string) =>
      pulledUntil(client.subscribe(childSessionId, 0), (frame) =>
        frame._tag === "Event" ? Effect.as(printer.child(frame.event), frame.event.type === "turn.completed") : Effect.succeed(false)
      ).pipe(Effect.catchAll(() => stderr("  │ (its steps cannot be followed here; its answer follows)\n")))
    /** Before the subagent's answer line: what it did is printed (bounded: it ended already), then its follower goes. */
    const settleChild = (childSessionId: string) =>
      Effect.suspend(() => {
        const fiber = children.get(childSessionId)
        if (fiber === undefined) return Effect.void
        children.delete(childSessionId)
        return Effect.zipRight(Effect.ignore(Effect.timeout(Fiber.join(fiber), childSettleBound)), Fiber.interrupt(fiber))
      })

    let seen = after
    let turnId: string | undefined
    /** Connection attempts that failed in a row; a frame received resets it. */
    let drops = 0
    /** One frame: print it, answer our turn's questions; true once our turn completed. */
    const onFrame = (frame: HostFrame): Effect.Effect<boolean, E> =>
      Effect.gen(function* () {
        if (drops > 0) {
          drops = 0
          yield* stderr("reconnected\n")
        }
        if (frame._tag === "Baseline") {
          yield* Deferred.succeed(live, undefined)
          return false
        }
        if (frame._tag !== "Event") return false
        const event = frame.event
        seen = event.sequence
        // The session's earlier events are read only for its cost so far.
        if (event.sequence <= after) {
          yield* printer.earlier(event)
          return false
        }
        // A turn's events may come before the prompt's receipt names ours.
        if (event.turnId !== undefined) turnId ??= yield* Deferred.await(ourTurn)
        const ours = event.turnId !== undefined && event.turnId === turnId
        if (event.type === "permission.resolved" || event.type === "plan.resolved") yield* withdraw(event.payload.toolCallId)
        if (ours && event.type === "subagent.completed") yield* settleChild(event.payload.childSessionId)
        yield* printer.show(event)
        if (ours && event.type === "subagent.started" && printer.showsChildren) {
          children.set(event.payload.childSessionId, yield* FiberSet.run(followers, followChild(event.payload.childSessionId)))
        }
        if (event.type === "permission.requested") yield* askPermission(event, ours)
        if (event.type === "plan.proposed") yield* askPlan(event, ours)
        return ours && event.type === "turn.completed"
      })
    // Read by pulling (no stream operators per event). A reader that lagged resumes where it
    // was; so does one whose connection dropped, after a pause that grows while it keeps failing.
    const follow = (from: number): Effect.Effect<void, E> =>
      pulledUntil(client.subscribe(sessionId, from), onFrame).pipe(
        Effect.catchAll((error) => {
          if (client.isLagged(error)) return Effect.suspend(() => follow(seen))
          if (!client.isDropped(error) || drops >= maxReconnects) return Effect.fail(error)
          drops++
          return stderr(drops === 1 ? `connection to the server lost; reconnecting from event ${seen}…\n` : "").pipe(
            Effect.zipRight(Effect.sleep(reconnectPause(drops))),
            Effect.zipRight(Effect.suspend(() => follow(seen)))
          )
        })
      )
    // Without --json the closing line gives the session's cost, so its earlier events are read too.
    const watcher = yield* Effect.fork(Effect.raceFirst(follow(args.json ? after : 0), FiberSet.join(questions)))
    // Wait for the subscription to be live (its baseline), or for it to fail trying.
    yield* Effect.raceFirst(Deferred.await(live), Effect.zipRight(Fiber.join(watcher), Deferred.await(live)))
    const receipt = yield* client.prompt(promptRequest(args, sessionId))
    if (receipt._tag === "Queued") {
      yield* Fiber.interrupt(watcher)
      return yield* stderr(`session ${sessionId} is busy: your message waits in its queue (${receipt.messageId})\n`)
    }
    yield* Deferred.succeed(ourTurn, receipt.turnId)
    yield* Fiber.join(watcher).pipe(
      Effect.onInterrupt(() =>
        // Ctrl-C: stop asking, cancel the turn (bounded: a server may be gone), say how to go on.
        Effect.gen(function* () {
          yield* Fiber.interrupt(watcher)
          yield* Effect.ignore(Effect.timeout(client.cancel(sessionId), cancelBound))
          yield* stderr(`\ncancelled\n${continueHint(sessionId, args)}\n`)
        })
      )
    )
    yield* printer.finish(sessionId)
  }))
