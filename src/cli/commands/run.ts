import { Args, Command, Options } from "@effect/cli"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { existsSync } from "node:fs"
import { hostLayer } from "../../app/host.js"
import { resolveConfigDir, resolveDataDir } from "../../app/locations.js"
import type { EngineError } from "../../domain/errors.js"
import type { AnswerNotOffered, SubscriberLagged } from "../../domain/host.js"
import { AgentHost } from "../../host/AgentHost.js"
import type { McpError } from "../../services/McpHub.js"
import { PermissionEngine, type PermissionStoreError, type ProjectTrustError } from "../../services/PermissionEngine.js"
import { agentSetup } from "../agent-setup.js"
import { hostSocketPath } from "../host/host-files.js"
import { stderr } from "../io.js"
import { attachFiles } from "../prompt-attachments.js"
import type { DefaultModel } from "../model-notice.js"
import { reportUntrustedMcpServers } from "../mcp-config-check.js"
import * as shared from "../options.js"
import { describeTransport, remoteLayer, server, tokenFile } from "../remote.js"
import { maxCostUsd, maxTurnTokens, outputRetries, outputSchema } from "../output-schema.js"
import { runTurn } from "../run-turn.js"
import { promptFrom } from "../stdin-prompt.js"
import { promptForTrust } from "../trust-prompt.js"
import type { TurnClient } from "../turn-client.js"
import { compactRequested, interactive, makePrinter, needsSession, reportCompaction, type RunArgs } from "../turn-output.js"

const prompt = Args.text({ name: "prompt" }).pipe(
  Args.withDescription("What to ask the agent; - (or none, with stdin not a terminal) reads it from stdin"),
  Args.optional
)

const session = Options.text("session").pipe(
  Options.withPseudoName("ID"),
  Options.withDescription("Continue this session instead of starting a new one"),
  Options.optional
)

const mode = Options.choice("mode", ["default", "plan", "accept-edits", "bypass"]).pipe(
  Options.withDescription(
    "Permission mode, kept by the session for later turns: plan is read-only until you approve the agent's plan, accept-edits allows writes in the workspace, bypass allows everything (default: the session's mode; a new session's is default)"
  ),
  Options.optional
)

const approve = Options.choice("approve", ["deny", "allow-reads", "allow-edits", "allow-all"]).pipe(
  Options.withDescription("Answer permission questions with this policy instead of asking (default: ask on a terminal, deny otherwise)"),
  Options.optional
)

const attach = Options.text("attach").pipe(
  Options.withPseudoName("URI"),
  Options.withDescription("Attach an MCP resource by URI: its text goes with the prompt"),
  Options.repeated
)

const background = Options.boolean("bg").pipe(
  Options.withDescription(
    "Start the turn in the data directory's local host (started when none runs) and return at once, printing the session id; the turn goes on after this terminal closes: follow it with `custom-agent attach ID`"
  )
)

const noHost = Options.boolean("no-host").pipe(
  Options.withDescription("Run the turn in this process even when the data directory's local host runs (see `custom-agent host`)")
)

const maxSteps = shared.positiveWhole("max-steps").pipe(
  Options.withDescription("Model steps one turn may take before it stops with max_steps (default 50)"),
  Options.optional
)

/** The host in this process, on the local store: the same path as a server's clients take. */
const runEmbedded = (args: RunArgs, defaultModel: DefaultModel) =>
  Effect.gen(function* () {
    const host = yield* AgentHost
    if (compactRequested(args.prompt)) {
      if (Option.isNone(args.session)) return yield* needsSession
      const event = yield* host.compact(args.session.value)
      if (args.json && Option.isSome(event)) return yield* makePrinter(true).show(event.value)
      return yield* Option.match(event, {
        onNone: () => reportCompaction(false, undefined),
        onSome: (e) => reportCompaction(true, e.type === "context.compacted" ? e.payload.summary : undefined)
      })
    }
    // A person at the terminal decides on a project's untrusted allow rules before they could matter.
    if (Option.isNone(args.approve) && interactive()) {
      yield* promptForTrust(yield* PermissionEngine, process.cwd(), { input: process.stdin, output: process.stderr })
    }
    yield* reportUntrustedMcpServers(yield* PermissionEngine, process.cwd())
    // A refused answer (AnswerNotOffered) would be this terminal's bug: it offers only the question's own choices.
    const local: TurnClient<EngineError | McpError | SubscriberLagged | AnswerNotOffered | PermissionStoreError | ProjectTrustError> = {
      createSession: host.createSession,
      getSession: host.getSession,
      subscribe: host.subscribe,
      prompt: host.prompt,
      respondPermission: (sessionId, toolCallId, answer) =>
        host.respondPermission(sessionId, toolCallId, answer).pipe(
          Effect.as(true),
          Effect.catchTag("PermissionNotPending", () => Effect.succeed(false))
        ),
      cancel: host.cancel,
      isLagged: (error) => error._tag === "SubscriberLagged",
      isDropped: () => false,
      // Nobody else can answer in this process.
      unanswered: "deny",
      trust: yield* PermissionEngine
    }
    return yield* runTurn(local, args, defaultModel)
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
    maxCostUsd,
    maxTurnTokens,
    outputSchema,
    outputRetries,
    dataDir: shared.dataDir,
    store: shared.store,
    sandbox: shared.sandbox,
    sandboxNetwork: shared.sandboxNetwork,
    server,
    tokenFile,
    background,
    noHost
  },
  // Two paths that fail differently; the CLI reports either one the same way (main.ts).
  (given): Effect.Effect<void, unknown> =>
    Effect.flatMap(promptFrom(given.prompt), (text): Effect.Effect<void, unknown> => {
      const dataDir = resolveDataDir(Option.getOrUndefined(given.dataDir))
      const attached = attachFiles(text, { cwd: process.cwd(), home: process.env["HOME"], configDir: resolveConfigDir(), dataDir })
      const args = { ...given, prompt: attached.content, attachedBlocks: attached.attached }
      const notes = attached.notes.length === 0 ? Effect.void : stderr(attached.notes.map((note) => `${note}\n`).join(""))
      if (Option.isSome(args.server)) {
        const url = args.server.value
        return Effect.flatMap(Effect.zipRight(notes, Effect.promise(() => import("./run-remote.js"))), (remote) => remote.runRemote(args)).pipe(
          describeTransport(url),
          Effect.provide(remoteLayer(url, args.tokenFile))
        )
      }
      const inProcess = Effect.flatMap(Effect.zipRight(notes, agentSetup(args)), ({ config, choice }) =>
        runEmbedded(args, choice).pipe(Effect.provide(hostLayer({ ...config, workspaceRoots: [process.cwd()] })))
      )
      if (args.background) {
        return Effect.gen(function* () {
          const local = yield* Effect.promise(() => import("../host/use-host.js"))
          const host = yield* local.hostForBackground(dataDir, args)
          yield* notes
          const { runBackground } = yield* Effect.promise(() => import("./run-background.js"))
          yield* runBackground(args).pipe(local.describeLocalHost(dataDir), Effect.provide(local.localHostClient(host)))
        })
      }
      // The usual case costs one stat: no socket, no host to ask.
      if (args.noHost || !existsSync(hostSocketPath(dataDir))) return inProcess
      return Effect.gen(function* () {
        const local = yield* Effect.promise(() => import("../host/use-host.js"))
        const host = yield* local.hostToJoin(dataDir, args)
        if (host === undefined) return yield* inProcess
        yield* notes
        const remote = yield* Effect.promise(() => import("./run-remote.js"))
        yield* remote.runRemote(args, "deny").pipe(local.describeLocalHost(dataDir), Effect.provide(local.localHostClient(host)))
      })
    })
).pipe(Command.withDescription("Run one turn: stream the answer as it arrives (locally, or on a server with --server)"))
