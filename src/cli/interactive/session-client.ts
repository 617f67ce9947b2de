import type * as Effect from "effect/Effect"
import type * as Stream from "effect/Stream"
import type { RedoRequest, RewindRequest } from "../../core/SessionEngine.js"
import type { AgentEvent } from "../../domain/events.js"
import type { HostFrame, PermissionAnswer, PromptReceipt, PromptRequest, SessionListItem, SessionView } from "../../domain/host.js"
import type { PermissionMode, ProjectTrust, RememberedAnswer } from "../../domain/permissions.js"
import type { SlashCommandList } from "../../domain/slash-commands.js"
import type { RewindResult } from "../../domain/rewind.js"
import type { McpServerStatus } from "../../services/McpHub.js"
import type { Memory, MemoryCandidate } from "../../services/MemoryStore.js"

/** A prompt as the session sends it: the domain's one shape, its client set by the transport. */
export type PromptInput = Omit<PromptRequest, "client">

/**
 * What the interactive session asks of the agent: the same calls whether the host runs in this
 * process or on a server (`--server`, through the RPC client), so both follow one path. It is
 * a client only: every decision is the host's. Failures are the host's or the transport's,
 * shown to the person by `describe`.
 */
export interface SessionClient {
  /** The server's URL when the sessions live on one (`--server`). */
  readonly server: string | undefined
  /**
   * Where the host runs: in this process (leaving stops its turns), the data directory's local
   * host, or a server (their turns go on when this client leaves).
   */
  readonly host: "here" | "local" | "server"
  readonly createSession: (input: { readonly cwd: string; readonly title: string; readonly model?: string }) => Effect.Effect<SessionView, unknown>
  readonly getSession: (sessionId: string) => Effect.Effect<SessionView, unknown>
  /** Newest activity first. */
  readonly listSessions: Effect.Effect<ReadonlyArray<SessionListItem>, unknown>
  readonly subscribe: (sessionId: string, afterSequence: number) => Stream.Stream<HostFrame, unknown>
  /** `/name args` for one of these is expanded by the host (the content sent is what was typed). */
  readonly prompt: (input: PromptInput) => Effect.Effect<PromptReceipt, unknown>
  /** The workspace's slash commands (its command files and the user's), as the host finds them. */
  readonly listCommands: (cwd: string) => Effect.Effect<SlashCommandList, unknown>
  /** False when the question was no longer pending (another client answered first). */
  readonly respondPermission: (sessionId: string, toolCallId: string, answer: PermissionAnswer) => Effect.Effect<boolean, unknown>
  readonly cancel: (sessionId: string) => Effect.Effect<void, unknown>
  readonly setMode: (sessionId: string, mode: PermissionMode) => Effect.Effect<void, unknown>
  /** Makes `model` the session's now (`session.model_changed`): its next turn asks it. */
  readonly setModel: (sessionId: string, model: string) => Effect.Effect<void, unknown>
  readonly compact: (sessionId: string) => Effect.Effect<{ readonly compacted: boolean; readonly summary?: string | undefined }, unknown>
  readonly exportSession: (sessionId: string) => Stream.Stream<AgentEvent, unknown>
  readonly rewind: (sessionId: string, request: RewindRequest) => Effect.Effect<RewindResult, unknown>
  readonly redo: (sessionId: string, request: RedoRequest) => Effect.Effect<RewindResult, unknown>
  readonly fork: (sessionId: string) => Effect.Effect<SessionView, unknown>
  /** Whether a workspace's own configuration is trusted, with what trust would turn on (where the host runs). */
  readonly projectTrust: (workspaceRoot: string) => Effect.Effect<ProjectTrust, unknown>
  /** Trusts it as shown (`sha256` from projectTrust); refused when it changed since. */
  readonly trustProject: (workspaceRoot: string, sha256: string) => Effect.Effect<ProjectTrust, unknown>
  readonly rememberedAnswers: (workspaceRoot: string) => Effect.Effect<ReadonlyArray<RememberedAnswer>, unknown>
  readonly revokeAnswer: (id: string) => Effect.Effect<RememberedAnswer, unknown>
  readonly memories: (workspaceRoot: string) => Effect.Effect<{ readonly memories: ReadonlyArray<Memory>; readonly candidates: ReadonlyArray<MemoryCandidate> }, unknown>
  readonly reviewMemory: (candidateId: string, decision: "approve" | "reject") => Effect.Effect<void, unknown>
  /** The session's MCP servers; undefined where the client cannot see them (a server's, over the API). */
  readonly mcpStatus: ((sessionId: string) => Effect.Effect<ReadonlyArray<McpServerStatus>, unknown>) | undefined
  /** Whether a subscription ended because this reader fell behind: it then resumes from its last sequence. */
  readonly isLagged: (error: unknown) => boolean
  /** Whether a subscription ended because its connection dropped: it then reconnects from its last sequence. */
  readonly isDropped: (error: unknown) => boolean
  /** A failure as one line for a person. */
  readonly describe: (error: unknown) => string
}

/** Whether a failure is the tagged error `tag` (local errors and decoded remote ones alike carry their tag). */
export const hasTag = (error: unknown, tag: string): boolean =>
  typeof error === "object" && error !== null && "_tag" in error && error._tag === tag
