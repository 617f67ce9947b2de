import * as Effect from "effect/Effect"
import type { AcpMode } from "./modes.js"
import { type UsageTally, emptyTally } from "./usage.js"

/** A session opened on this connection by `session/new`, `load`, `resume` or `fork`. */
export interface OpenSession {
  readonly sessionId: string
  /** The session's workspace, as stored. */
  readonly cwd: string
  mode: AcpMode
  /** The model the session's next turn asks: its stored one, as the last `session.model_changed` heard or the client's pick set it. */
  model: string
  /** What the model option offers (the session's model is always among them). */
  models: ReadonlyArray<string>
  /** One prompt at a time: a prompt waits for the one before it to finish. */
  readonly prompts: Effect.Semaphore
  /** Counts `session/cancel`s: a prompt that sees it change since it arrived answers `cancelled`. */
  cancels: number
  /** Prompts of this connection in progress (waiting or running): what `session/close` cancels. */
  active: number
  /** The session's spend and context fill, as far as the log has been read. */
  usage: UsageTally
}

export interface Opening {
  readonly sessionId: string
  readonly cwd: string
  readonly mode: AcpMode
  readonly model: string
  readonly models: ReadonlyArray<string>
}

/** The sessions this connection opened; prompts to any other are refused. */
export class OpenSessions {
  private readonly sessions = new Map<string, OpenSession>()

  open({ sessionId, cwd, mode, model, models }: Opening): OpenSession {
    const existing = this.sessions.get(sessionId)
    if (existing !== undefined) {
      existing.mode = mode
      existing.model = model
      existing.models = models
      return existing
    }
    const session: OpenSession = { sessionId, cwd, mode, model, models, prompts: Effect.unsafeMakeSemaphore(1), cancels: 0, active: 0, usage: emptyTally }
    this.sessions.set(sessionId, session)
    return session
  }

  get(sessionId: string): OpenSession | undefined {
    return this.sessions.get(sessionId)
  }

  /** Forgets the session: later prompts to it are refused until it is opened again. */
  close(sessionId: string): void {
    this.sessions.delete(sessionId)
  }
}
