import * as Layer from "effect/Layer"
import * as SessionEngine from "../core/SessionEngine.js"
import * as AgentHost from "../host/AgentHost.js"
import * as Fanout from "../host/fanout.js"
import * as PendingAsks from "../host/pending-asks.js"
import { withTracing } from "../layers/telemetry/live.js"
import { type AgentConfig, checkpointsOf, coreLayer, engineOptions } from "./agent.js"

export interface HostConfig extends AgentConfig {
  /** Frames a subscriber may have waiting before it is dropped (and resumes). */
  readonly subscriberBuffer?: number
}

/**
 * The agent as a host for many clients: permission questions wait for any client to answer
 * them, and every committed event is fanned out to subscribers.
 */
export const hostLayer = (config: HostConfig) =>
  AgentHost.layer.pipe(
    Layer.provideMerge(SessionEngine.layer(engineOptions(config))),
    Layer.provideMerge(Layer.mergeAll(coreLayer(config), PendingAsks.layer, withTracing(Fanout.eventBusLayer, config.version ?? "0.0.0"), checkpointsOf(config))),
    Layer.provideMerge(Fanout.layer({ bufferSize: config.subscriberBuffer ?? 4096 }))
  )
