import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type { EventOf } from "../../domain/events.js"
import * as InteractiveApprovals from "../../layers/approvals/interactive.js"
import * as PolicyApprovals from "../../layers/approvals/policy.js"
import { AgentClient } from "../../rpc/client.js"
import { stderr, useColor } from "../io.js"
import { compactRequested, interactive, makePrinter, needsSession, reportCompaction, type RunArgs, titleOf } from "../turn-output.js"

/**
 * A client of a running server: subscribe, prompt, print the turn, answer its permission
 * questions (policy, or the person at the terminal; otherwise another client may).
 * Interrupting (Ctrl-C) cancels the turn on the server.
 */
export const runRemote = (args: RunArgs) =>
  Effect.gen(function* () {
    const client = yield* AgentClient
    const printer = makePrinter(args.json)
    if (compactRequested(args.prompt)) {
      if (Option.isNone(args.session)) return yield* needsSession
      const result = yield* client.Compact({ sessionId: args.session.value })
      return yield* reportCompaction(result.compacted, result.summary)
    }
    const view = Option.isSome(args.session)
      ? yield* client.GetSession({ sessionId: args.session.value })
      : yield* client.CreateSession({ cwd: process.cwd(), title: titleOf(args.prompt), client: "cli" })
    const sessionId = view.sessionId
    const after = Option.isSome(args.session) ? view.lastSequence : 0
    const live = yield* Deferred.make<void>()
    let ourTurn: string | undefined
    const terminal = InteractiveApprovals.make({ input: process.stdin, output: process.stderr, color: useColor(process.stderr) })

    const answer = (event: EventOf<"permission.requested">) =>
      Effect.gen(function* () {
        if (event.turnId === undefined || event.turnId !== ourTurn) return
        const request = {
          sessionId,
          turnId: event.turnId,
          toolCallId: event.payload.toolCallId,
          tool: event.payload.tool,
          risk: event.payload.risk,
          summary: event.payload.summary,
          input: undefined,
          ...(event.payload.detail === undefined ? {} : { detail: event.payload.detail })
        }
        const decided = Option.isSome(args.approve)
          ? PolicyApprovals.answerFor(args.approve.value, event.payload.risk)
          : interactive()
            ? yield* terminal.ask(request)
            : undefined
        if (decided === undefined) return yield* stderr("waiting for a client of the server to answer the permission question…\n")
        // The record says who answered: this client's policy (named in the reason) or the person here.
        const answer = { decision: decided.decision, scope: decided.scope, by: decided.by, ...(decided.reason === undefined ? {} : { reason: decided.reason }) }
        yield* client
          .RespondPermission({ sessionId, toolCallId: request.toolCallId, answer })
          .pipe(Effect.catchTag("PermissionNotPending", () => stderr("(another client answered first)\n")))
      })

    const watcher = yield* client.Subscribe({ sessionId, afterSequence: after }).pipe(
      Stream.tap((frame) => (frame._tag === "Baseline" ? Deferred.succeed(live, undefined) : Effect.void)),
      Stream.filterMap((frame) => (frame._tag === "Event" ? Option.some(frame.event) : Option.none())),
      Stream.takeUntil((event) => event.type === "turn.completed" && event.turnId !== undefined && event.turnId === ourTurn),
      Stream.runForEach((event) => Effect.zipRight(printer.show(event), event.type === "permission.requested" ? answer(event) : Effect.void)),
      Effect.fork
    )
    // Wait for the subscription to be live (its baseline), or for it to fail trying.
    yield* Effect.raceFirst(Deferred.await(live), Effect.zipRight(Fiber.join(watcher), Deferred.await(live)))
    const receipt = yield* client.Prompt({
      sessionId,
      content: args.prompt,
      client: "cli",
      ...(Option.isSome(args.mode) ? { permissionMode: args.mode.value } : {}),
      ...(args.attach.length === 0 ? {} : { attachments: args.attach })
    })
    if (receipt._tag === "Queued") {
      yield* Fiber.interrupt(watcher)
      return yield* stderr(`session ${sessionId} is busy: your message waits in its queue (${receipt.messageId})\n`)
    }
    ourTurn = receipt.turnId
    yield* Fiber.join(watcher).pipe(
      Effect.onInterrupt(() => client.Cancel({ sessionId }).pipe(Effect.ignore))
    )
    yield* printer.finish(sessionId)
  })

