import type * as Effect from "effect/Effect"
import type * as Stream from "effect/Stream"
import type { HostFrame, PermissionAnswer, PromptReceipt, SessionView } from "../domain/host.js"
import type { PermissionMode } from "../domain/permissions.js"
import type { TurnTerms } from "../domain/turn-terms.js"
import type { TrustAccess } from "./trust-prompt.js"

/**
 * What `run` needs of the agent, the same whether the host runs in this process or on a
 * server (`--server`, through the RPC client): so both follow one path.
 */
export interface TurnClient<E> {
  /** `attachments`: the first prompt's, checked before the session exists (a failure creates none). */
  readonly createSession: (input: {
    readonly cwd: string
    readonly client: string
    readonly title: string
    readonly attachments: ReadonlyArray<string>
    /** The model `--model` names; left out, the host's default. */
    readonly model?: string
  }) => Effect.Effect<SessionView, E>
  readonly getSession: (sessionId: string) => Effect.Effect<SessionView, E>
  readonly subscribe: (sessionId: string, afterSequence: number) => Stream.Stream<HostFrame, E>
  readonly prompt: (request: {
    readonly sessionId: string
    readonly content: string
    readonly client: string
    readonly permissionMode?: PermissionMode
    /** Recorded as the session's model when it is another; left out, the session's holds. */
    readonly model?: string
    readonly attachments?: ReadonlyArray<string>
    readonly maxSteps?: number
    readonly terms?: TurnTerms
    readonly requestId?: string
  }) => Effect.Effect<PromptReceipt, E>
  /** False when the question was no longer pending (another client answered first). */
  readonly respondPermission: (sessionId: string, toolCallId: string, answer: PermissionAnswer) => Effect.Effect<boolean, E>
  readonly cancel: (sessionId: string) => Effect.Effect<void, E>
  /** Whether a subscription ended because this reader fell behind: it then resumes from its last sequence. */
  readonly isLagged: (error: E) => boolean
  /** Whether a subscription ended because its connection dropped: it then reconnects from its last sequence. */
  readonly isDropped: (error: E) => boolean
  /**
   * A question neither a policy nor a person here answers: in this process nobody else can,
   * so it is denied; a server's other clients may answer it.
   */
  readonly unanswered: "deny" | "wait"
  /** Where a workspace's trust is read and given (the session's own, when it is not the current folder's). */
  readonly trust: TrustAccess<E>
}
