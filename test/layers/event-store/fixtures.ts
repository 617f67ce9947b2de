import { Chunk, Effect, Stream } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { AgentEvent } from "../../../src/domain/events.js"
import type { EventStoreShape } from "../../../src/services/EventStore.js"

const BASE = Date.UTC(2026, 0, 1)

/** A timestamp `ms` milliseconds after a fixed start, so tests control listing order. */
export const at = (ms: number) => new Date(BASE + ms).toISOString()

export interface CreatedOptions {
  readonly time?: number
  readonly title?: string
  readonly model?: string
  readonly cwd?: string
}

export const created = (sessionId: string, options: CreatedOptions = {}): AgentEvent => ({
  id: `evt_${sessionId}_1`,
  schemaVersion: 1,
  sessionId,
  sequence: 1,
  timestamp: at(options.time ?? 1),
  type: "session.created",
  payload: {
    cwd: options.cwd ?? `/work/${sessionId}`,
    client: "test",
    ...(options.title === undefined ? {} : { title: options.title }),
    ...(options.model === undefined ? {} : { model: options.model })
  }
})

export const delta = (sessionId: string, sequence: number, text = `text ${sequence}`, time = sequence): AgentEvent => ({
  id: `evt_${sessionId}_${sequence}`,
  schemaVersion: 1,
  sessionId,
  turnId: "turn_1",
  sequence,
  timestamp: at(time),
  type: "model.delta",
  payload: { text }
})

/** The envelope of a session's event at `sequence` (timestamp: `sequence` ms after the start), in the catalogue's field order. */
const envelope = (sessionId: string, sequence: number, turnId?: string) => ({
  id: `evt_${sessionId}_${sequence}`,
  schemaVersion: 1 as const,
  sessionId,
  ...(turnId === undefined ? {} : { turnId }),
  sequence,
  timestamp: at(sequence)
})

export const renamed = (sessionId: string, sequence: number, title: string): AgentEvent => ({
  ...envelope(sessionId, sequence),
  type: "session.renamed",
  payload: { title, by: "test" }
})

export const archived = (sessionId: string, sequence: number, flag: boolean): AgentEvent => ({
  ...envelope(sessionId, sequence),
  type: "session.archived",
  payload: { archived: flag, by: "test" }
})

export const turnStarted = (sessionId: string, sequence: number, turnId: string): AgentEvent => ({
  ...envelope(sessionId, sequence, turnId),
  type: "turn.started",
  payload: { promptPreview: "go" }
})

export const turnCompleted = (sessionId: string, sequence: number, turnId: string): AgentEvent => ({
  ...envelope(sessionId, sequence, turnId),
  type: "turn.completed",
  payload: { stopReason: "final" }
})

export const turnFailed = (sessionId: string, sequence: number, turnId: string): AgentEvent => ({
  ...envelope(sessionId, sequence, turnId),
  type: "turn.completed",
  payload: { stopReason: "error", errorCode: "network" }
})

/** Events `from..to` of a session: `session.created` at 1, then deltas. */
export const range = (sessionId: string, from: number, to: number): Array<AgentEvent> => {
  const events: Array<AgentEvent> = []
  for (let s = from; s <= to; s++) events.push(s === 1 ? created(sessionId) : delta(sessionId, s))
  return events
}

/** A fresh temporary directory, removed with the scope. */
export const tempDir = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "event-store-test-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

/** Everything a replay gives, after `after` when set. */
export const replayAll = (store: EventStoreShape, sessionId: string, after?: number) =>
  Stream.runCollect(store.replay(sessionId, after)).pipe(Effect.map(Chunk.toArray))

/** What a replay emitted before it failed, and the failure. */
export const replayUntilFailure = (store: EventStoreShape, sessionId: string) =>
  Effect.gen(function* () {
    const seen: Array<number> = []
    const error = yield* store.replay(sessionId).pipe(
      Stream.runForEach((event) => Effect.sync(() => seen.push(event.sequence))),
      Effect.flip
    )
    return { seen, error }
  })
