import * as Effect from "effect/Effect"
import type { AcpMode } from "./modes.js"

/** A session opened on this connection by `session/new` or `session/load`. */
export interface OpenSession {
  readonly sessionId: string
  /** The session's workspace, as stored. */
  readonly cwd: string
  mode: AcpMode
  /** One prompt at a time: a prompt waits for the one before it to finish. */
  readonly prompts: Effect.Semaphore
  /** Counts `session/cancel`s: a prompt that sees it change since it arrived answers `cancelled`. */
  cancels: number
}

/** The sessions this connection opened; prompts to any other are refused. */
export class OpenSessions {
  private readonly sessions = new Map<string, OpenSession>()

  open(sessionId: string, cwd: string, mode: AcpMode): OpenSession {
    const existing = this.sessions.get(sessionId)
    if (existing !== undefined) {
      existing.mode = mode
      return existing
    }
    const session: OpenSession = { sessionId, cwd, mode, prompts: Effect.unsafeMakeSemaphore(1), cancels: 0 }
    this.sessions.set(sessionId, session)
    return session
  }

  get(sessionId: string): OpenSession | undefined {
    return this.sessions.get(sessionId)
  }
}
