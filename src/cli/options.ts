import { Options } from "@effect/cli"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { parseModelSpec } from "../layers/model/model-spec.js"
import { pathProblem, usageError } from "./errors.js"
import { closest } from "./suggest.js"

/**
 * A whole number ≥ 1 (steps, tokens, seconds), shown as N. Read as text and checked here, so
 * `abc`, `0` and `-1` all get the one message that names the option and what it takes.
 */
export const positiveWhole = (name: string) =>
  Options.text(name).pipe(
    Options.withPseudoName("N"),
    Options.mapEffect((text) => {
      const value = Number(text.trim())
      return /^\+?\d+$/.test(text.trim()) && Number.isSafeInteger(value) && value >= 1
        ? Effect.succeed(value)
        : Effect.fail(usageError(`--${name} must be a whole number ≥ 1, got ${text}`))
    })
  )

/** A positive amount of US dollars (`0.5`, `2`), shown as USD. */
export const positiveUsd = (name: string) =>
  Options.text(name).pipe(
    Options.withPseudoName("USD"),
    Options.mapEffect((text) => {
      const value = Number(text.trim())
      return /^\+?(\d+(\.\d*)?|\.\d+)$/.test(text.trim()) && Number.isFinite(value) && value > 0
        ? Effect.succeed(value)
        : Effect.fail(usageError(`--${name} must be an amount of US dollars > 0, such as 0.50, got ${text}`))
    })
  )

/** `path` if it is there and of this type; else a usage error naming the option or argument (`label`). */
export const existing = (label: string, type: "File" | "Directory") => (path: string) =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => fs.stat(path)).pipe(
    Effect.mapError(() => usageError(pathProblem(label, type === "File" ? "no such file" : "no such directory", path))),
    Effect.filterOrFail(
      (info) => info.type === type,
      () => usageError(pathProblem(label, type === "File" ? "not a file" : "not a directory", path))
    ),
    Effect.as(path)
  )

/** A directory that must exist (`--cwd`), shown as DIR. */
export const existingDirectory = (name: string) =>
  Options.text(name).pipe(Options.withPseudoName("DIR"), Options.mapEffect(existing(`--${name}`, "Directory")))

/** `--cwd DIR` of the listing commands: the project whose definitions are listed. */
export const projectToList = existingDirectory("cwd").pipe(
  Options.withDescription("The project to look in (default: the current directory)"),
  Options.optional
)

export const dataDir = Options.text("data-dir").pipe(
  Options.withPseudoName("DIR"),
  Options.withDescription("Where sessions are stored (default: $CUSTOM_AGENT_HOME or ~/.local/share/custom-agent)"),
  Options.optional
)

export const store = Options.choice("store", ["sqlite", "jsonl"]).pipe(
  Options.withDescription("Event store: one SQLite file (default) or one JSONL file per session"),
  Options.withDefault("sqlite")
)

const PROVIDERS = ["scripted", "anthropic", "openai"]

/** A model the CLI cannot use is a usage error, before anything starts; a near miss of a provider is suggested. */
const checkModel = (spec: string) =>
  Either.match(parseModelSpec(spec), {
    onRight: () => Effect.succeed(spec),
    onLeft: (error) => {
      const slash = spec.indexOf("/")
      const provider = slash === -1 ? spec : spec.slice(0, slash)
      const near = closest(provider, PROVIDERS)
      const suggestion = near === undefined || near === provider ? "" : `; did you mean ${near}${slash === -1 ? "" : spec.slice(slash)}?`
      return Effect.fail(usageError(`--model: ${error.message}${suggestion}`))
    }
  })

export const model = Options.text("model").pipe(
  Options.withPseudoName("MODEL"),
  Options.withDescription(
    'scripted, anthropic, anthropic/<model-id>, openai/<model-id> (the Responses API on OpenAI, else Chat Completions) or openai-compatible/<model-id> (Chat Completions); kept by the session for later turns (default: the session\'s; a new session\'s is "model" in settings.json, else anthropic when ANTHROPIC_API_KEY is set, else scripted)'
  ),
  Options.mapEffect(checkModel),
  Options.optional
)

export const maxOutputTokens = positiveWhole("max-output-tokens").pipe(
  Options.withDescription("Output token limit per model request (default: the model's own, at most 32000)"),
  Options.optional
)

export const thinkingBudget = positiveWhole("thinking-budget").pipe(
  Options.withDescription("Turn on extended thinking with this token budget (Anthropic)"),
  Options.optional
)

export const script = Options.text("script").pipe(
  Options.withPseudoName("FILE"),
  Options.withDescription("A JSON script for the scripted model (see the README's script format)"),
  // Not there: a usage error (exit 2); there but malformed: the run fails when it reads it (exit 1).
  Options.mapEffect(existing("--script", "File")),
  Options.optional
)

export const json = Options.boolean("json").pipe(
  Options.withDescription("Print every event as one JSON line (NDJSON), exactly as stored")
)

export const sandbox = Options.choice("sandbox", ["auto", "off", "on"]).pipe(
  Options.withDescription(
    "Sandbox for shell commands and stdio MCP servers (bubblewrap): auto (default) uses it when it works, off never, on refuses to start without it"
  ),
  Options.withDefault("auto")
)

export const sandboxNetwork = Options.boolean("sandbox-network").pipe(
  Options.withDescription("Open the network inside the sandbox (closed by default, loopback included)")
)

/** For the long-running commands (`serve`, `acp`): when a session nobody uses leaves memory. */
export const sessionIdle = positiveWhole("session-idle").pipe(
  Options.withDescription(
    "Seconds a session nobody uses stays in memory; then it is evicted and its MCP servers stop, and the next use reloads it from the log (default: 300)"
  ),
  Options.withDefault(300)
)

/** What every command that runs the agent in this process takes: the model, the store, the sandbox. */
export const agent = { model, script, maxOutputTokens, thinkingBudget, dataDir, store, sandbox, sandboxNetwork }
