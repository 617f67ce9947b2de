import { Layer } from "effect"
import * as path from "node:path"
import * as SessionEngine from "../../src/core/SessionEngine.js"
import * as Policy from "../../src/layers/approvals/policy.js"
import { builtInContext } from "../../src/layers/context/static.js"
import { noEventBus } from "../../src/layers/event-bus/none.js"
import { noHooks } from "../../src/layers/hooks/none.js"
import { IdsLive } from "../../src/layers/ids.js"
import { noMemoryStore } from "../../src/layers/memory/none.js"
import * as Scripted from "../../src/layers/model/scripted.js"
import * as Permissions from "../../src/layers/permission/engine.js"
import { sandboxOff } from "../../src/layers/sandbox/off.js"
import { LocalFilesLive } from "../../src/layers/tools/local-file-access.js"
import { localTools } from "../../src/layers/tools/local.js"
import { noMcp } from "../../src/layers/tools/mcp-none.js"
import * as Router from "../../src/layers/tools/router.js"
import type { EventBus } from "../../src/services/EventBus.js"
import type { EventStore } from "../../src/services/EventStore.js"

/**
 * The engine of the per-step benches: a scripted turn of `steps` `read_file` calls of
 * `notes.txt` in `workspace`, then an answer, on `store`, its events announced on `bus`.
 */
export const readChainEngine = (options: {
  readonly store: Layer.Layer<EventStore, unknown>
  readonly workspace: string
  readonly steps: number
  readonly bus?: Layer.Layer<EventBus, unknown>
}) => {
  const call = { toolCall: { name: "read_file", input: { path: "notes.txt" } } }
  const script: Scripted.Script = {
    // Usage given, so the scripted model does not estimate it from the whole request.
    responses: [...Array.from({ length: options.steps }, () => ({ chunks: [call], usage: { inputTokens: 1, outputTokens: 1 } })), "done"]
  }
  return SessionEngine.layer({ ...SessionEngine.defaultEngineOptions, maxSteps: options.steps + 1 }).pipe(
    Layer.provide(
      Layer.mergeAll(
        options.store,
        Scripted.layer(script),
        IdsLive,
        Router.layer([Router.staticSource("local", localTools(sandboxOff))]),
        Permissions.layer({ approvalsFile: path.join(options.workspace, "approvals.json") }),
        Policy.layer("deny"),
        LocalFilesLive,
        noHooks,
        builtInContext,
        noMemoryStore,
        noMcp,
        options.bus ?? noEventBus
      )
    )
  )
}
