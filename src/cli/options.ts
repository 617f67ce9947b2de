import { Options } from "@effect/cli"
import * as Option from "effect/Option"

export const dataDir = Options.text("data-dir").pipe(
  Options.withDescription("Where sessions are stored (default: $CUSTOM_AGENT_HOME or ~/.local/share/custom-agent)"),
  Options.optional
)

export const store = Options.choice("store", ["sqlite", "jsonl"]).pipe(
  Options.withDescription("Event store: one SQLite file (default) or one JSONL file per session"),
  Options.withDefault("sqlite")
)

export const model = Options.text("model").pipe(
  Options.withDescription("scripted (default), anthropic, anthropic/<model-id> or openai/<model-id>"),
  Options.withDefault("scripted")
)

export const maxOutputTokens = Options.integer("max-output-tokens").pipe(
  Options.withDescription("Output token limit per model request (default: the model's own, at most 32000)"),
  Options.optional
)

export const thinkingBudget = Options.integer("thinking-budget").pipe(
  Options.withDescription("Turn on extended thinking with this token budget (Anthropic)"),
  Options.optional
)

export const script = Options.text("script").pipe(
  Options.withDescription("A JSON script for the scripted model (see the README's script format)"),
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
export const sessionIdle = Options.integer("session-idle").pipe(
  Options.withDescription(
    "Seconds a session nobody uses stays in memory; then it is evicted and its MCP servers stop, and the next use reloads it from the log (default: 300)"
  ),
  Options.filterMap((seconds) => (seconds > 0 ? Option.some(seconds) : Option.none()), "--session-idle must be a positive number of seconds"),
  Options.withDefault(300)
)

/** What every command that runs the agent in this process takes: the model, the store, the sandbox. */
export const agent = { model, script, maxOutputTokens, thinkingBudget, dataDir, store, sandbox, sandboxNetwork }
