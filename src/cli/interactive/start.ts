import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { resolve } from "node:path"
import type { LocalHost } from "../host/connect.js"
import { hostLayer } from "../../app/host.js"
import { resolveConfigDir, resolveDataDir } from "../../app/locations.js"
import { packageVersion } from "../../app/package-root.js"
import { PermissionEngine } from "../../services/PermissionEngine.js"
import { agentSetup } from "../agent-setup.js"
import { stderr, useColor } from "../io.js"
import { reportUntrustedMcpServers, untrustedMcpNote } from "../mcp-config-check.js"
import { type DefaultModel, echoNotice, modelIdOf } from "../model-notice.js"
import { describeTransport, remoteLayer } from "../remote.js"
import { promptForTrust } from "../trust-prompt.js"
import { type AppExit, type Opening, runApp } from "./app.js"
import { agentsText, hooksText } from "./listings.js"
import { localSessionClient } from "./local-client.js"
import type { InteractiveArgs } from "./options.js"
import type { SessionClient } from "./session-client.js"
import { latestHere, resolveSession } from "./session-choice.js"

interface Setting {
  readonly defaultModel: DefaultModel
  /** A new session's model when nothing names one: known for the host in this process. */
  readonly newSessionModel: string | undefined
  /** Why the local host is not used (it could not start, or differs from this client), shown first. */
  readonly note?: string | undefined
}

/** Which session to open: `--session` (id or its start), `--continue` (this workspace's last), `--resume` (the picker), else a new one. */
const openingOf = (client: SessionClient, args: InteractiveArgs, cwd: string) =>
  Effect.gen(function* () {
    if (Option.isSome(args.session)) return { opening: { _tag: "Resume", sessionId: yield* resolveSession(client, args.session.value) } satisfies Opening, note: undefined }
    if (args.continueLast) {
      const last = latestHere(yield* client.listSessions, cwd)
      if (last !== undefined) return { opening: { _tag: "Resume", sessionId: last } satisfies Opening, note: undefined }
      return { opening: { _tag: "New" } satisfies Opening, note: "no session in this workspace yet: this is a new one" }
    }
    return { opening: (args.resume ? { _tag: "Pick" } : { _tag: "New" }) satisfies Opening, note: undefined }
  })

const session = (client: SessionClient, args: InteractiveArgs, setting: Setting) =>
  Effect.gen(function* () {
    const cwd = resolve(process.cwd())
    const configDir = resolveConfigDir()
    const dataDir = resolveDataDir(Option.getOrUndefined(args.dataDir))
    const { opening, note } = yield* openingOf(client, args, cwd)
    const model = Option.map(args.model, modelIdOf)
    const notice = echoNotice({
      model: Option.getOrElse(model, () => setting.newSessionModel),
      explicit: Option.isSome(args.model) || Option.isSome(args.script),
      continued: opening._tag === "Resume" ? Option.some(opening.sessionId) : Option.none(),
      defaultModel: setting.defaultModel
    })
    const exit = yield* runApp({
      client,
      cwd,
      color: useColor(process.stdout),
      opening,
      model: Option.getOrUndefined(model),
      defaultModel: setting.newSessionModel,
      mode: Option.getOrUndefined(args.mode),
      notices: [
        ...(setting.note === undefined ? [] : [{ text: setting.note, tone: "warn" as const }]),
        ...(notice === undefined ? [] : [{ text: notice.trimEnd(), tone: "warn" as const }]),
        ...(note === undefined ? [] : [{ text: note, tone: "dim" as const }])
      ],
      attach: { home: process.env["HOME"], configDir, dataDir },
      listings: { agents: (workspace) => agentsText(workspace, configDir), hooks: (workspace) => hooksText(workspace, configDir, dataDir) },
      version: packageVersion()
    })
    if (exit.sessionId !== undefined) yield* stderr(exitLine(client, exit.sessionId, exit))
  })

/** The line left on the terminal: how to get back to the session, and what became of its running turn. */
const exitLine = (client: SessionClient, sessionId: string, exit: AppExit): string => {
  const server = client.server === undefined ? "" : ` --server ${client.server}`
  const where = client.host === "local" ? "the local host" : "the server"
  if (exit.left === "detached") {
    const follow = client.host === "local" ? `custom-agent attach ${sessionId}` : `custom-agent --resume ${sessionId}${server}`
    return `session ${sessionId} · ${exit.turn === "running" ? `its turn goes on in ${where}` : `it stays in ${where}`}; follow it with: ${follow}\n`
  }
  const turn = exit.turn === "cancelled" ? "its running turn was cancelled · " : exit.turn === "uncancelled" ? `its running turn may go on (${where} did not confirm the cancel) · ` : ""
  return `session ${sessionId} · ${turn}resume it with: custom-agent --resume ${sessionId}${server}\n`
}

/**
 * The interactive session, with its host: in this process on the local store (the project's
 * trust asked first, as `run` asks it), or a running server's (`--server`), through its API.
 */
export const startInteractive = (args: InteractiveArgs): Effect.Effect<void, unknown> => {
  if (Option.isSome(args.server)) {
    const url = args.server.value
    return Effect.flatMap(Effect.promise(() => import("./remote-client.js")), (remote) => remote.remoteSessionClient(url)).pipe(
      Effect.flatMap((client) =>
        session(client, args, { defaultModel: { chosen: true, reason: "it is the server's default model" }, newSessionModel: undefined })
      ),
      describeTransport(url),
      Effect.provide(remoteLayer(url, args.tokenFile))
    )
  }
  if (args.noHost) return inProcess(args)
  const dataDir = resolveDataDir(Option.getOrUndefined(args.dataDir))
  // The running host, else one started now (while the launcher's first frame is up), so the session's turns outlive this terminal.
  return Effect.flatMap(Effect.promise(() => import("../host/use-host.js")), (local) =>
    Effect.flatMap(local.hostForSession(dataDir, args), (place) => (place._tag === "Here" ? inProcess(args, place.note) : onLocalHost(args, dataDir, place.host, "ask trust")))
  )
}

/**
 * The session through the data directory's local host, on its socket (`attach`, or the host the
 * session found or started). Started in a workspace (`ask trust`), the project's untrusted
 * configuration is put to the person first, as the session in this process does.
 */
export const onLocalHost = (args: InteractiveArgs, dataDir: string, host: LocalHost, trust?: "ask trust"): Effect.Effect<void, unknown> =>
  Effect.flatMap(Effect.promise(() => import("../host/use-host.js")), (local) =>
    Effect.flatMap(Effect.promise(() => import("./remote-client.js")), (remote) => remote.remoteSessionClient(undefined)).pipe(
      Effect.tap((client) => (trust === undefined ? Effect.void : askTrust(client))),
      Effect.flatMap((client) => session(client, args, { defaultModel: { chosen: true, reason: "it is the local host's default model" }, newSessionModel: undefined })),
      local.describeLocalHost(dataDir),
      Effect.provide(local.localHostClient(host))
    )
  )

/** The workspace's trust, asked through the host (which loads the workspace's configuration), and what stays off untrusted. */
const askTrust = (client: SessionClient) =>
  Effect.gen(function* () {
    const trust = yield* promptForTrust(
      { projectTrust: client.projectTrust, trustProject: (workspaceRoot, sha256) => client.trustProject(workspaceRoot, sha256) },
      process.cwd(),
      { input: process.stdin, output: process.stderr }
    )
    const skipped = untrustedMcpNote(trust)
    if (skipped !== undefined) yield* stderr(skipped)
  }).pipe(Effect.catchAll((error) => stderr(`custom-agent: the project's trust cannot be read (${client.describe(error)}); its configuration stays untrusted\n`)))

/** The session with the host in this process; `note`: why the local host was not used, shown first. */
const inProcess = (args: InteractiveArgs, note?: string): Effect.Effect<void, unknown> =>
  Effect.flatMap(agentSetup(args), ({ config, choice }) =>
    Effect.gen(function* () {
      const permissions = yield* PermissionEngine
      // A person decides on a project's untrusted allow rules before they could matter, as `run` asks.
      yield* promptForTrust(permissions, process.cwd(), { input: process.stdin, output: process.stderr })
      yield* reportUntrustedMcpServers(permissions, process.cwd())
      const client = yield* localSessionClient
      yield* session(client, args, { defaultModel: choice, newSessionModel: modelIdOf(choice.spec), note })
    }).pipe(Effect.provide(hostLayer({ ...config, workspaceRoots: [process.cwd()] })))
  )
