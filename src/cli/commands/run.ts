import { Args, Command, Options } from "@effect/cli"
import { Deferred, Effect, Fiber, Option, Stream } from "effect"
import { agentLayer } from "../../app/agent.js"
import { resolveConfigDir, resolveDataDir } from "../../app/locations.js"
import { packageVersion } from "../../app/package-root.js"
import { SessionEngine } from "../../core/SessionEngine.js"
import type { AgentEvent, EventOf } from "../../domain/events.js"
import type { PermissionMode } from "../../domain/permissions.js"
import * as InteractiveApprovals from "../../layers/approvals/interactive.js"
import * as PolicyApprovals from "../../layers/approvals/policy.js"
import { AgentClient } from "../../rpc/client.js"
import { withAttachments } from "../../core/attachments.js"
import { EventStore } from "../../services/EventStore.js"
import { McpHub } from "../../services/McpHub.js"
import { CliError } from "../errors.js"
import { stderr, stdout, useColor, writeSegments } from "../io.js"
import * as shared from "../options.js"
import { describeTransport, remoteLayer, server, token } from "../remote.js"
import { makeRenderer } from "../render.js"

const prompt = Args.text({ name: "prompt" }).pipe(Args.withDescription("What to ask the agent"))

const session = Options.text("session").pipe(
  Options.withDescription("Continue this session instead of starting a new one"),
  Options.optional
)

const mode = Options.choice("mode", ["default", "plan", "accept-edits", "bypass"]).pipe(
  Options.withDescription("Permission mode: plan is read-only, accept-edits allows writes in the workspace, bypass allows everything"),
  Options.withDefault("default")
)

const approve = Options.choice("approve", ["deny", "allow-reads", "allow-edits", "allow-all"]).pipe(
  Options.withDescription("Answer permission questions with this policy instead of asking (default: ask on a terminal, deny otherwise)"),
  Options.optional
)

const attach = Options.text("attach").pipe(
  Options.withDescription("Attach an MCP resource by URI (repeatable): its text goes with the prompt"),
  Options.repeated
)

const maxSteps = Options.integer("max-steps").pipe(
  Options.withDescription("Model steps one turn may take before it stops with max_steps"),
  Options.optional
)

const exitCodeOf = (event: AgentEvent): number | undefined => {
  if (event.type !== "turn.completed") return undefined
  if (event.payload.stopReason === "error") return 1
  if (event.payload.stopReason === "cancelled") return 130
  return 0
}

const titleOf = (text: string) => {
  const line = text.replace(/\s+/g, " ").trim()
  return line.length > 60 ? `${line.slice(0, 59)}…` : line
}

/** How the turn's events reach the terminal: rendered, or NDJSON exactly as stored. */
const makePrinter = (json: boolean) => {
  const renderer = makeRenderer({ color: useColor(process.stdout), live: true })
  let exitCode = 0
  const show = (event: AgentEvent) =>
    Effect.zipRight(
      Effect.sync(() => {
        exitCode = exitCodeOf(event) ?? exitCode
      }),
      json ? stdout(`${JSON.stringify(event)}\n`) : writeSegments(renderer.render(event))
    )
  const finish = (sessionId: string) =>
    Effect.zipRight(
      json ? Effect.void : stderr(useColor(process.stderr) ? `\x1b[2msession ${sessionId}\x1b[0m\n` : `session ${sessionId}\n`),
      Effect.sync(() => {
        process.exitCode = exitCode
      })
    )
  return { show, finish }
}

const interactive = () => process.stdin.isTTY === true

interface RunArgs {
  readonly prompt: string
  readonly attach: ReadonlyArray<string>
  readonly session: Option.Option<string>
  readonly json: boolean
  readonly mode: PermissionMode
  readonly approve: Option.Option<PolicyApprovals.ApprovalPolicy>
  readonly maxSteps: Option.Option<number>
}

/** The engine in this process, on the local store. */
const compactRequested = (prompt: string) => prompt.trim() === "/compact"

const reportCompaction = (compacted: boolean, summary: string | undefined) =>
  stdout(compacted ? `compacted the earlier turns into a summary:\n\n${summary ?? ""}\n` : "nothing new to compact\n")

const needsSession = new CliError({ message: "/compact works on an existing session: pass --session ID" })

const runEmbedded = (args: RunArgs) =>
  Effect.gen(function* () {
    const engine = yield* SessionEngine
    const store = yield* EventStore
    const printer = makePrinter(args.json)
    if (compactRequested(args.prompt)) {
      if (Option.isNone(args.session)) return yield* needsSession
      const event = yield* engine.compact(args.session.value)
      if (args.json && Option.isSome(event)) return yield* printer.show(event.value)
      return yield* Option.match(event, {
        onNone: () => reportCompaction(false, undefined),
        onSome: (e) => reportCompaction(true, e.type === "context.compacted" ? e.payload.summary : undefined)
      })
    }
    let sessionId: string
    if (Option.isSome(args.session)) {
      sessionId = args.session.value
    } else {
      const created = yield* engine.createSession({ cwd: process.cwd(), client: "cli", title: titleOf(args.prompt) })
      sessionId = created.header.sessionId
      if (args.json) yield* store.replay(sessionId).pipe(Stream.runForEach(printer.show))
    }
    const content = yield* withAttachments(yield* Effect.serviceOption(McpHub), sessionId, args.prompt, args.attach)
    yield* engine
      .runTurn({
        sessionId,
        content,
        permissionMode: args.mode,
        ...(Option.isSome(args.maxSteps) ? { maxSteps: args.maxSteps.value } : {})
      })
      .pipe(Stream.runForEach(printer.show))
    yield* printer.finish(sessionId)
  })

/**
 * A client of a running server: subscribe, prompt, print the turn, answer its permission
 * questions (policy, or the person at the terminal; otherwise another client may).
 * Interrupting (Ctrl-C) cancels the turn on the server.
 */
const runRemote = (args: RunArgs) =>
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
        yield* client
          .RespondPermission({ sessionId, toolCallId: request.toolCallId, answer: { decision: decided.decision, scope: decided.scope } })
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
      permissionMode: args.mode,
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

export const runCommand = Command.make(
  "run",
  {
    prompt,
    session,
    json: shared.json,
    model: shared.model,
    script: shared.script,
    maxOutputTokens: shared.maxOutputTokens,
    thinkingBudget: shared.thinkingBudget,
    mode,
    approve,
    attach,
    maxSteps,
    dataDir: shared.dataDir,
    store: shared.store,
    server,
    token
  },
  (args) => {
    if (Option.isSome(args.server)) {
      const url = args.server.value
      return runRemote(args).pipe(
        Effect.mapError(describeTransport(url)),
        Effect.provide(remoteLayer(url, args.token))
      )
    }
    const approvals = Option.isSome(args.approve)
      ? PolicyApprovals.layer(args.approve.value)
      : interactive()
        ? InteractiveApprovals.layer({ input: process.stdin, output: process.stderr, color: useColor(process.stderr) })
        : PolicyApprovals.layer("deny")
    return runEmbedded(args).pipe(
      Effect.provide(
        agentLayer({
          dataDir: resolveDataDir(Option.getOrUndefined(args.dataDir)),
          configDir: resolveConfigDir(),
          version: packageVersion(),
          store: args.store,
          model: {
            spec: args.model,
            ...(Option.isSome(args.script) ? { scriptPath: args.script.value } : {}),
            ...(Option.isSome(args.maxOutputTokens) ? { maxOutputTokens: args.maxOutputTokens.value } : {}),
            ...(Option.isSome(args.thinkingBudget) ? { thinkingBudget: args.thinkingBudget.value } : {})
          },
          approvals,
          workspaceRoots: [process.cwd()]
        })
      )
    )
  }
).pipe(Command.withDescription("Run one turn: stream the answer as it arrives (locally, or on a server with --server)"))
