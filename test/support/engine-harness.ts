import { Chunk, Effect, Layer, Stream } from "effect"
import { randomUUID } from "node:crypto"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as SessionEngine from "../../src/core/SessionEngine.js"
import type { AgentEvent } from "../../src/domain/events.js"
import * as ScriptedApprovals from "../../src/layers/approvals/scripted.js"
import { IdsDeterministic } from "../../src/layers/ids.js"
import * as Scripted from "../../src/layers/model/scripted.js"
import * as Permissions from "../../src/layers/permission/engine.js"
import { LocalFilesLive } from "../../src/layers/tools/local-file-access.js"
import * as Router from "../../src/layers/tools/router.js"
import { EventStore } from "../../src/services/EventStore.js"
import type { ModelGateway } from "../../src/services/ModelGateway.js"
import type { Tool } from "../../src/services/ToolRouter.js"

export type StoreLayer = Layer.Layer<EventStore, unknown>

export interface HarnessOptions {
  readonly engine?: SessionEngine.SessionEngineOptions
  readonly tools?: ReadonlyArray<Tool>
  readonly answers?: ReadonlyArray<ScriptedApprovals.ScriptedAnswer>
  /** Where "always" approvals persist; a fresh temporary file by default. */
  readonly approvalsFile?: string
  /** A real model adapter instead of the scripted model. */
  readonly model?: Layer.Layer<ModelGateway, unknown>
}

/** An engine on the given store with a scripted model; the store stays reachable for assertions. */
export const engineLayer = (store: StoreLayer, script?: Scripted.Script, options: HarnessOptions = {}) =>
  SessionEngine.layer(options.engine).pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        store,
        options.model ?? Scripted.layer(script),
        IdsDeterministic,
        Router.layer([Router.staticSource("test", options.tools ?? [])]),
        Permissions.layer({ approvalsFile: options.approvalsFile ?? join(tmpdir(), `approvals-${randomUUID()}.json`) }),
        ScriptedApprovals.layer(options.answers ?? []),
        LocalFilesLive
      )
    )
  )

export const replayAll = (sessionId: string) =>
  Effect.flatMap(EventStore, (store) => Stream.runCollect(store.replay(sessionId))).pipe(Effect.map(Chunk.toArray))

export const types = (events: ReadonlyArray<AgentEvent>) => events.map((e) => e.type)

/** Waits (yielding, not sleeping) until the session's log reaches `sequence`. */
export const awaitSequence = (sessionId: string, sequence: number) =>
  Effect.gen(function* () {
    const store = yield* EventStore
    for (let i = 0; i < 10_000; i++) {
      const head = yield* store.head(sessionId)
      if (head._tag === "Some" && head.value >= sequence) return
      yield* Effect.yieldNow()
    }
    return yield* Effect.dieMessage(`session ${sessionId} never reached sequence ${sequence}`)
  })
