import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { resolveConfigDir } from "../../app/locations.js"
import { socketClientLayer } from "../../rpc/socket-client.js"
import type { AgentArgs } from "../agent-setup.js"
import { hostArguments } from "../commands/host.js"
import { CliError } from "../errors.js"
import { stderr } from "../io.js"
import { describeTransportAs } from "../remote.js"
import { term } from "../terminal-text.js"
import { type LocalHost, runningHost, startHost } from "./connect.js"
import { hostLogPath } from "./host-files.js"

/**
 * Options that configure the agent's process rather than a session: a host has its own (those
 * it was started with), so a client giving one runs in its own process instead of joining it.
 */
const configuresProcess = (args: AgentArgs) => Option.isSome(args.script) || Option.isSome(args.maxOutputTokens) || Option.isSome(args.thinkingBudget)

/**
 * Why this client may not join the host, or undefined when it may: the host must run commands
 * in the sandbox the client asks for (the same mode and network: a client asking for the
 * sandbox never joins a host without one, nor a closed network an open one), and read the
 * user configuration folder the client would (its rules, settings and private places), so a
 * client's own deny rules are never left out by joining.
 */
const mismatch = (host: LocalHost, args: AgentArgs): string | undefined => {
  const sandbox = host.status.sandbox
  if (sandbox === undefined || sandbox.mode !== (args.sandbox ?? "auto") || sandbox.network !== (args.sandboxNetwork ?? false)) {
    return "the local host runs commands with another sandbox setting than this client's (--sandbox, --sandbox-network)"
  }
  if (host.status.configDir !== resolveConfigDir()) {
    return "the local host reads another user configuration folder (rules, settings) than this client's (CUSTOM_AGENT_CONFIG_HOME, XDG_CONFIG_HOME)"
  }
  return undefined
}

/**
 * The running host a client joins, or none: none runs, the client configures its own process,
 * or the host cannot be used (another version, another sandbox: said in one line, and the
 * client runs here).
 */
export const hostToJoin = (dataDir: string, args: AgentArgs): Effect.Effect<LocalHost | undefined> =>
  configuresProcess(args)
    ? Effect.succeed(undefined)
    : runningHost(dataDir).pipe(
        Effect.flatMap((host) => {
          const why = host === undefined ? undefined : mismatch(host, args)
          return why === undefined ? Effect.succeed(host) : Effect.as(stderr(term`${why}; running in this process instead\n`), undefined)
        }),
        Effect.catchAll((error) => Effect.as(stderr(term`${error.message}; running in this process instead\n`), undefined))
      )

/**
 * How long the interactive session waits for a host it starts (a cold start builds the store
 * and checks the sandbox) before it runs in its own process; a host that answers later idles out.
 */
const SESSION_START_TIMEOUT = Duration.seconds(15)

/** Where the interactive session runs: on a host, or here, with the one line saying why when a host was not used. */
export type SessionPlace = { readonly _tag: "Host"; readonly host: LocalHost } | { readonly _tag: "Here"; readonly note: string | undefined }

/** A host that could not be used or started, said in one line (a failed start's log stays in host.log). */
const runningHere = (dataDir: string, message: string): SessionPlace => {
  const [first = "", ...rest] = message.split("\n")
  const log = rest.some((line) => line.trim() !== "") ? ` (its log: ${hostLogPath(dataDir)})` : ""
  return { _tag: "Here", note: `${first.replace(/:\s*$/, "")}${log}; running in this process instead` }
}

/**
 * The host the interactive session runs on: the running one, else one started now with the
 * session's options (as `run --bg` starts it), so its turns outlive the terminal. None when the
 * session configures its own process, or the host cannot be used or started (another version,
 * another sandbox, no socket path, a failed or slow start: the note says it in one line, shown
 * in the session, so the launcher's first frame stays up until the session draws).
 */
export const hostForSession = (dataDir: string, args: AgentArgs): Effect.Effect<SessionPlace> =>
  configuresProcess(args)
    ? Effect.succeed({ _tag: "Here", note: undefined })
    : startHost(dataDir, hostArguments(args)).pipe(
        Effect.timeoutFail({
          duration: SESSION_START_TIMEOUT,
          onTimeout: () => new CliError({ message: `the local host of ${dataDir} did not answer within ${Duration.toSeconds(SESSION_START_TIMEOUT)} s` })
        }),
        Effect.map((host): SessionPlace => {
          const why = mismatch(host, args)
          return why === undefined ? { _tag: "Host", host } : runningHere(dataDir, why)
        }),
        Effect.catchAll((error) => Effect.succeed(runningHere(dataDir, error.message)))
      )

/** The host a background turn runs in: the running one, else one started now with this client's options. */
export const hostForBackground = (dataDir: string, args: AgentArgs): Effect.Effect<LocalHost, CliError> =>
  Effect.gen(function* () {
    const running = yield* runningHost(dataDir)
    if (running === undefined) return yield* startHost(dataDir, hostArguments(args))
    if (configuresProcess(args) || mismatch(running, args) !== undefined) {
      return yield* new CliError({
        message: `the local host of ${dataDir} runs already, with its own model, sandbox and configuration (--script, --max-output-tokens, --thinking-budget, --sandbox, --sandbox-network, the user configuration folder are its): \`custom-agent host stop\` first to start one with yours`
      })
    }
    return running
  })

/** The agent's API on the host's socket. */
export const localHostClient = (host: LocalHost) => socketClientLayer({ path: host.path, token: host.token })

/** A transport failure on the socket as one line naming the host. */
export const describeLocalHost = (dataDir: string) => describeTransportAs(`the local host of ${dataDir}`)
