import * as Effect from "effect/Effect"
import type { ProjectTrust } from "../../domain/permissions.js"
import { untrustedMcpNote } from "../mcp-config-check.js"
import { describeTrust, widens } from "../trust-prompt.js"
import type { Choice } from "./choice-list.js"
import type { SessionClient } from "./session-client.js"
import type { Tone } from "./timeline.js"

export interface WorkspaceCheck {
  readonly client: SessionClient
  /** Where the interactive session was started. */
  readonly here: string
  readonly note: (text: string, tone?: Tone) => void
  /** A list to pick from; undefined when left with Esc. */
  readonly choose: <A>(title: string, choices: ReadonlyArray<Choice<A>>, filterable: boolean) => Effect.Effect<A | undefined>
}

type Decision = "open" | "trust" | "stay"

/**
 * Before a session of another workspace is opened here: it keeps its own workspace (its tools
 * read, write and run commands there, its rules and trust are that folder's), which is said
 * plainly, and the person decides, as they would on starting in that folder: a configuration
 * there that widens what the agent may do and is not trusted is shown, and stays off (only its
 * deny and ask rules apply; no hooks, MCP servers or network) unless they trust it now. Leaving
 * the question (Esc) or "stay here" opens nothing. True when the session may be opened.
 */
export const confirmOtherWorkspace = (check: WorkspaceCheck, sessionId: string, workspace: string): Effect.Effect<boolean, unknown> =>
  Effect.gen(function* () {
    const { client, note, choose } = check
    const trust: ProjectTrust = yield* client.projectTrust(workspace)
    const asksTrust = !trust.trusted && widens(trust) && trust.sha256 !== undefined
    note(`session ${sessionId} works in ${workspace}, not in ${check.here}: opened here, its tools still read, write and run commands in ${workspace}, under that folder's rules`, "warn")
    if (asksTrust) note(`That workspace's own configuration widens what the agent may do, and is not trusted yet:\n${describeTrust(trust).text}`, "warn")
    const choices: ReadonlyArray<Choice<Decision>> = asksTrust
      ? [
          { label: "open it there, its configuration not trusted", detail: "only its deny and ask rules apply; its hooks and MCP servers do not run; the network stays closed", value: "open" },
          { label: "open it there and trust its configuration", detail: "as shown above", value: "trust" },
          { label: "stay here", value: "stay" }
        ]
      : [
          { label: `open it there (${workspace})`, value: "open" },
          { label: "stay here", value: "stay" }
        ]
    const decided = yield* choose(`Open session ${sessionId} of ${workspace}?`, choices, false)
    if (decided === undefined || decided === "stay") {
      note("stayed in this session: nothing was opened")
      return false
    }
    const now = decided === "trust" && trust.sha256 !== undefined ? yield* client.trustProject(workspace, trust.sha256) : trust
    if (decided === "trust") note(`trusted the configuration of ${workspace}`, "info")
    const skipped = untrustedMcpNote(now)
    if (skipped !== undefined) note(skipped.replace(/^custom-agent: /, "").trimEnd(), "warn")
    return true
  })
