import { Args, Command, Options } from "@effect/cli"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { agentLayer } from "../../app/agent.js"
import { withAttachments } from "../../core/attachments.js"
import { forEachPulled } from "../../core/for-each-pulled.js"
import { SessionEngine } from "../../core/SessionEngine.js"
import * as InteractiveApprovals from "../../layers/approvals/interactive.js"
import * as PolicyApprovals from "../../layers/approvals/policy.js"
import { EventStore } from "../../services/EventStore.js"
import { McpHub } from "../../services/McpHub.js"
import { PermissionEngine } from "../../services/PermissionEngine.js"
import { agentSetup } from "../agent-setup.js"
import { useColor } from "../io.js"
import { promptForTrust } from "../trust-prompt.js"
import * as shared from "../options.js"
import { describeTransport, remoteLayer, server, token } from "../remote.js"
import { compactRequested, interactive, makePrinter, needsSession, reportCompaction, type RunArgs, titleOf } from "../turn-output.js"

const prompt = Args.text({ name: "prompt" }).pipe(Args.withDescription("What to ask the agent"))

const session = Options.text("session").pipe(
  Options.withDescription("Continue this session instead of starting a new one"),
  Options.optional
)

const mode = Options.choice("mode", ["default", "plan", "accept-edits", "bypass"]).pipe(
  Options.withDescription(
    "Permission mode, kept by the session for later turns: plan is read-only, accept-edits allows writes in the workspace, bypass allows everything (default: the session's mode; a new session's is default)"
  ),
  Options.optional
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

/** The engine in this process, on the local store. */
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
    // A person at the terminal decides on a project's untrusted allow rules before they could matter.
    if (Option.isNone(args.approve) && interactive()) {
      yield* promptForTrust(yield* PermissionEngine, process.cwd(), { input: process.stdin, output: process.stderr })
    }
    const content = yield* withAttachments(yield* McpHub, sessionId, args.prompt, args.attach)
    const turn = engine.runTurn({
      sessionId,
      content,
      client: "cli",
      ...(Option.isSome(args.mode) ? { permissionMode: args.mode.value } : {}),
      ...(Option.isSome(args.maxSteps) ? { maxSteps: args.maxSteps.value } : {})
    })
    yield* forEachPulled(turn, printer.show)
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
    sandbox: shared.sandbox,
    sandboxNetwork: shared.sandboxNetwork,
    server,
    token
  },
  // Two paths that fail differently; the CLI reports either one the same way (main.ts).
  (args): Effect.Effect<void, unknown> => {
    if (Option.isSome(args.server)) {
      const url = args.server.value
      return Effect.flatMap(Effect.promise(() => import("./run-remote.js")), (remote) => remote.runRemote(args)).pipe(
        describeTransport(url),
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
          ...agentSetup(args),
          approvals,
          workspaceRoots: [process.cwd()]
        })
      )
    )
  }
).pipe(Command.withDescription("Run one turn: stream the answer as it arrives (locally, or on a server with --server)"))
