import { Options } from "@effect/cli"
import * as Option from "effect/Option"
import type { StoreKind } from "../../app/locations.js"
import type { PermissionMode } from "../../domain/permissions.js"
import type { AgentArgs } from "../agent-setup.js"
import * as shared from "../options.js"
import { server, tokenFile } from "../remote.js"

const continueLast = Options.boolean("continue").pipe(
  Options.withAlias("c"),
  Options.withDescription("Resume this workspace's last session")
)

const resume = Options.boolean("resume").pipe(
  Options.withAlias("r"),
  Options.withDescription("Pick a session to resume (this workspace's first; type to filter); -r ID resumes that one, as --session ID")
)

const session = Options.text("session").pipe(
  Options.withPseudoName("ID"),
  Options.withDescription("Resume this session: its id, or the start of it"),
  Options.optional
)

const mode = Options.choice("mode", ["default", "plan", "accept-edits", "bypass"]).pipe(
  Options.withDescription(
    "Permission mode, kept by the session: plan is read-only until you approve the agent's plan, accept-edits allows writes in the workspace, bypass allows everything (Shift+Tab cycles it in the session)"
  ),
  Options.optional
)

const noHost = Options.boolean("no-host").pipe(
  Options.withDescription("Run the session in this process even when the data directory's local host runs (see `custom-agent host`)")
)

/** What `custom-agent` with no command takes: which session, where it runs, and the agent's options `run` takes too. */
export const interactiveOptions = {
  continueLast,
  resume,
  session,
  mode,
  model: shared.model,
  script: shared.script,
  maxOutputTokens: shared.maxOutputTokens,
  thinkingBudget: shared.thinkingBudget,
  dataDir: shared.dataDir,
  store: shared.store,
  sandbox: shared.sandbox,
  sandboxNetwork: shared.sandboxNetwork,
  server,
  tokenFile,
  noHost
}

export interface InteractiveArgs extends AgentArgs {
  readonly continueLast: boolean
  readonly resume: boolean
  readonly session: Option.Option<string>
  readonly mode: Option.Option<PermissionMode>
  readonly store: StoreKind
  readonly server: Option.Option<string>
  readonly tokenFile: Option.Option<string>
  /** `--no-host`: run here even when the data directory's local host runs. */
  readonly noHost: boolean
}

/**
 * The session's arguments when another command opens it (`attach`, the sessions view): which
 * session and where it lives; every agent option left to the host or the session's own.
 */
export const openingArgs = (opening: Pick<InteractiveArgs, "continueLast" | "session" | "dataDir" | "store" | "server" | "tokenFile">): InteractiveArgs => ({
  resume: false,
  mode: Option.none(),
  model: Option.none(),
  script: Option.none(),
  maxOutputTokens: Option.none(),
  thinkingBudget: Option.none(),
  noHost: false,
  ...opening
})
