import type { PromptResponse, SessionUpdate, StopReason } from "@agentclientprotocol/sdk/unstable"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as FiberSet from "effect/FiberSet"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { EngineError } from "../domain/errors.js"
import type { AgentEvent, EventOf, TurnStopReason } from "../domain/events.js"
import type { HostFrame } from "../domain/host.js"
import type { AgentHostShape } from "../host/AgentHost.js"
import type { FileAccess } from "../services/ToolRouter.js"
import { withEditDiff } from "./edit-diff.js"
import { fromEngineError, internalError, type ProtocolError } from "./errors.js"
import type { OpenSession } from "./open-sessions.js"
import { type AskDeps, askClient } from "./permission.js"
import type { UpdateBarrier } from "./update-barrier.js"
import { makeTranslator } from "./updates.js"
import { makeSubagentProgress } from "./subagent-progress.js"
import { acpModeOf } from "./modes.js"
import { configOptionUpdate } from "./config-options.js"
import { addUsage, usageUpdate } from "./usage.js"
import { planQuestion } from "./plan-question.js"
import type { PromptContent } from "./prompt-content.js"

export interface TurnDeps extends AskDeps {
  /** The file access the session's tools use, to show an edit's question as a diff. */
  readonly files: FileAccess
  readonly barrier: UpdateBarrier
}

const stopReasons: Readonly<Record<Exclude<TurnStopReason, "error">, StopReason>> = {
  final: "end_turn",
  cancelled: "cancelled",
  max_steps: "max_turn_requests",
  max_tokens: "max_tokens",
  refusal: "refusal",
  // ACP has no stop reason for a spending limit; the closest is the turn's request limit.
  budget: "max_turn_requests"
}

type Outcome = EventOf<"turn.completed">["payload"]

const cancelledResponse: PromptResponse = { stopReason: "cancelled" }

type Phase =
  /** Waiting for the session to be idle (the turn before may still be closing). */
  | { readonly _tag: "Waiting" }
  | { readonly _tag: "Running"; readonly turnId: string }
  | { readonly _tag: "Done"; readonly outcome: Outcome }

/** The session's frames from `after` on; a subscriber dropped for lagging resumes where it was. */
const follow = (host: AgentHostShape, sessionId: string, after: number): Stream.Stream<HostFrame, EngineError> =>
  Stream.suspend(() => {
    let last = after
    const from = (sequence: number): Stream.Stream<HostFrame, EngineError> =>
      host.subscribe(sessionId, sequence).pipe(
        Stream.tap((frame) =>
          Effect.sync(() => {
            if (frame._tag === "Event") last = frame.event.sequence
          })
        ),
        Stream.catchTag("SubscriberLagged", () => from(last))
      )
    return from(after)
  })

/**
 * One `session/prompt`: waits its turn behind the connection's earlier prompts, starts a
 * host turn, streams that turn's events (and the session's own, such as the title its first
 * prompt gives it) to the client as `session/update`s, puts its permission questions to the
 * client (an edit shown as a diff), and answers with the stop reason once the turn's last
 * update is out. `arrival` is the session's cancel count when the prompt arrived: a cancel
 * since then makes the answer `cancelled`, whatever the turn did.
 */
export const runPrompt = (deps: TurnDeps, session: OpenSession, prompt: PromptContent, arrival: number): Effect.Effect<PromptResponse, ProtocolError> =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      session.active += 1
    }),
    () => runOrdered(deps, session, prompt, arrival),
    () =>
      Effect.sync(() => {
        session.active -= 1
      })
  )

/**
 * The session's spend from its log up to `through`, added to what this connection counted
 * already (a session opened by new or resume has not read its log).
 */
const catchUpUsage = (host: AgentHostShape, session: OpenSession, through: number): Effect.Effect<void, ProtocolError> =>
  session.usage.through >= through
    ? Effect.void
    : host.exportSession(session.sessionId).pipe(
        Stream.takeWhile((event) => event.sequence <= through),
        Stream.mapError(fromEngineError),
        Stream.runFold(session.usage, addUsage),
        Effect.map((tally) => {
          session.usage = tally
        })
      )

const runOrdered = (deps: TurnDeps, session: OpenSession, { content, attached }: PromptContent, arrival: number): Effect.Effect<PromptResponse, ProtocolError> =>
  session.prompts.withPermits(1)(
    Effect.scoped(
      Effect.gen(function* () {
        const { host, peer, barrier } = deps
        const { sessionId } = session
        const cancelled = () => session.cancels !== arrival
        if (cancelled()) return cancelledResponse
        const view = yield* host.getSession(sessionId).pipe(Effect.mapError(fromEngineError))
        const latest = host.getSession(sessionId).pipe(
          Effect.map((now) => now.lastSequence),
          // Unknown: wait for nothing rather than for ever.
          Effect.orElseSucceed(() => 0)
        )
        yield* barrier.follow(sessionId, view.lastSequence, latest)
        yield* catchUpUsage(host, session, view.lastSequence)
        const sessionFiles = { sessionId, cwd: session.cwd, files: deps.files.forSession?.(sessionId) ?? deps.files }
        const translator = makeTranslator({ cwd: session.cwd, replay: false })
        const askers = yield* FiberSet.make()
        /** The followers of running subagents, by the parent's task call; each ends with the call. */
        const children = new Map<string, Fiber.RuntimeFiber<void, ProtocolError>>()

        const send = (updates: ReadonlyArray<SessionUpdate>) =>
          Effect.forEach(updates, (update) => peer.update({ sessionId, update }), { discard: true }).pipe(
            Effect.mapError((error) => internalError(`could not send an update: ${error.message}`))
          )

        const start: Effect.Effect<Phase, ProtocolError, Scope.Scope> = Effect.gen(function* () {
          if (cancelled()) return { _tag: "Done", outcome: { stopReason: "cancelled" } }
          const receipt = yield* host
            // No model: the one the client picked was recorded when it was picked, and another client's choice since is not undone from here.
            .prompt({ sessionId, content, ...(attached.length === 0 ? {} : { attached }), mode: "queue", permissionMode: session.mode, client: "acp" })
            .pipe(Effect.mapError(fromEngineError))
          if (receipt._tag === "Queued") {
            // Only another process could be running a turn here; do not leave the message behind.
            yield* host.editQueue(sessionId, receipt.messageId, { _tag: "Delete" }).pipe(Effect.ignoreLogged)
            return yield* internalError(`session ${sessionId} is busy with a turn this connection did not start`)
          }
          // A cancel that came while the turn was being admitted found nothing to cancel yet.
          if (cancelled()) yield* Effect.forkScoped(host.cancel(sessionId).pipe(Effect.ignoreLogged))
          return { _tag: "Running", turnId: receipt.turnId }
        })

        const step = (phase: Phase, frame: HostFrame): Effect.Effect<Phase, ProtocolError, Scope.Scope> => {
          switch (frame._tag) {
            case "Baseline":
              return phase._tag === "Waiting" && !frame.session.running ? start : Effect.succeed(phase)
            case "Status":
              return phase._tag === "Waiting" && !frame.running ? start : Effect.succeed(phase)
            case "KeepAlive":
              return Effect.succeed(phase)
            case "Event": {
              const { event } = frame
              // The next prompt asks for the session's mode and model as this connection holds them: a plan approved here or elsewhere changed it.
              const configured = configChanged(session, event)
              // Every request counts towards the session's cost, another turn's too.
              session.usage = addUsage(session.usage, event)
              const out = barrier.sent(sessionId, event.sequence)
              const options = configured ? send([configOptionUpdate(session)]) : Effect.void
              // The session's own events (a title it got) show too; another turn's do not.
              if (event.turnId === undefined) return send(translator.updates(event)).pipe(Effect.zipRight(options), Effect.zipRight(out), Effect.as(phase))
              if (phase._tag !== "Running" || event.turnId !== phase.turnId) return Effect.as(out, phase)
              // A child's progress starts after its task call says whom it went to, and stops before
              // the call's result is sent, which it must not overwrite.
              const before = event.type === "subagent.completed" ? stopFollowing(event.payload.toolCallId) : Effect.void
              const after =
                event.type === "subagent.started"
                  ? Effect.flatMap(Effect.forkScoped(followChild(event.payload.toolCallId, event.payload.agent, event.payload.childSessionId)), (fiber) =>
                      Effect.sync(() => children.set(event.payload.toolCallId, fiber))
                    )
                  : Effect.void
              const ask =
                event.type === "permission.requested"
                  ? FiberSet.run(
                      askers,
                      Effect.flatMap(withEditDiff(sessionFiles, translator.permissionToolCall(event)), (toolCall) => askClient(deps, sessionId, toolCall))
                    )
                  : event.type === "plan.proposed"
                    ? FiberSet.run(askers, askClient(deps, sessionId, translator.planToolCall(event), planQuestion))
                    : Effect.void
              const next: Phase = event.type === "turn.completed" ? { _tag: "Done", outcome: event.payload } : phase
              // Once a turn, at its end: its requests, its subagents' and its summaries are all counted by then.
              const spent = event.type === "turn.completed" ? usageUpdate(session.usage) : undefined
              const usage = spent === undefined ? Effect.void : send([spent])
              return before.pipe(
                Effect.zipRight(send(translator.updates(event))),
                Effect.zipRight(options),
                Effect.zipRight(usage),
                Effect.zipRight(after),
                Effect.zipRight(out),
                Effect.zipRight(ask),
                Effect.as(next)
              )
            }
          }
        }

        /** A subagent's events, as the content of its task call, until its turn ends. */
        const followChild = (toolCallId: string, agent: string, childSessionId: string): Effect.Effect<void, ProtocolError> => {
          const progress = makeSubagentProgress(toolCallId, agent)
          return follow(host, childSessionId, 0).pipe(
            Stream.mapError(fromEngineError),
            Stream.takeUntil((frame) => frame._tag === "Event" && frame.event.type === "turn.completed"),
            Stream.runForEach((frame) => {
              if (frame._tag !== "Event") return Effect.void
              const update = progress.add(frame.event)
              return update === undefined ? Effect.void : send([update])
            }),
            // Progress is a courtesy: the task call's result still comes with the parent's events.
            Effect.catchAll((error) => Effect.logWarning(`stopped showing the progress of subagent ${childSessionId}`, error))
          )
        }
        const stopFollowing = (toolCallId: string) =>
          Effect.suspend(() => {
            const fiber = children.get(toolCallId)
            children.delete(toolCallId)
            return fiber === undefined ? Effect.void : Fiber.interrupt(fiber)
          })

        const waiting: Phase = { _tag: "Waiting" }
        const end = yield* follow(host, sessionId, view.lastSequence).pipe(
          Stream.mapError(fromEngineError),
          Stream.runFoldWhileEffect(waiting, (phase) => phase._tag !== "Done", step)
        )
        if (end._tag !== "Done") return yield* internalError(`the event stream of ${sessionId} ended before the turn did`)
        if (cancelled()) return cancelledResponse
        const { outcome } = end
        if (outcome.stopReason === "error") {
          // ACP v1 has no error stop reason: a failed turn is a failed request, after its updates.
          return yield* internalError(outcome.message ?? "the turn failed", { errorCode: outcome.errorCode ?? "error" })
        }
        return { stopReason: stopReasons[outcome.stopReason] }
      })
    )
  )

/** Takes a mode or model change into the session as this connection holds it; true when it changed what the options show. */
const configChanged = (session: OpenSession, event: AgentEvent): boolean => {
  if (event.type === "session.mode_changed") {
    const mode = acpModeOf(event.payload.mode)
    const changed = mode !== session.mode
    session.mode = mode
    return changed
  }
  if (event.type === "session.model_changed") {
    const { model } = event.payload
    const changed = model !== session.model
    session.model = model
    if (!session.models.includes(model)) session.models = [model, ...session.models]
    return changed
  }
  return false
}
