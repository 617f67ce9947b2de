import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { drainOnStopLayer, sessionEntityLayer } from "../cluster/entity-handlers.js"
import { routerHostLayer } from "../cluster/router-host.js"
import { type RunnerOptions, runnerLayers } from "../layers/cluster/runner.js"
import { MemoryStore } from "../services/MemoryStore.js"
import { PermissionEngine } from "../services/PermissionEngine.js"
import { type HostConfig, hostLayer } from "./host.js"

/** How long a stopping runner waits for its running turns before it leaves the cluster. */
const SHUTDOWN_GRACE = "25 seconds"

export interface ClusterHostConfig extends HostConfig {
  readonly runner: RunnerOptions
  /** How long an idle session entity (and its actor) stays on its runner. */
  readonly sessionIdleMs: number
}

/**
 * A cluster runner's host: the API's host routes every change to the session's entity; the
 * entities this runner owns run on its own host, over the shared Postgres store. Each layer
 * is built once (layers are shared by reference within one build).
 */
export const clusterHostLayer = (config: ClusterHostConfig) => {
  const runner = runnerLayers(config.runner)
  const local = hostLayer({
    ...config,
    eventStore: runner.store,
    engine: { ...config.engine, sessionIdleMs: config.sessionIdleMs, runner: runner.address }
  })
  const entities = sessionEntityLayer({ maxIdleTime: `${config.sessionIdleMs} millis` })
  // The drain is built after the entities and so released before them: releasing the entities
  // starts the cluster's shutdown, which gives the shards away.
  const serving = drainOnStopLayer(SHUTDOWN_GRACE).pipe(Layer.provideMerge(entities))
  const routed = Layer.merge(routerHostLayer, serving).pipe(Layer.provide(Layer.merge(local, runner.cluster)))
  // What the API serves besides sessions is this runner's own.
  // Exactly these two: the whole local context would carry the local host over the router.
  const own = Layer.effectContext(
    Effect.gen(function* () {
      return Context.make(MemoryStore, yield* MemoryStore).pipe(Context.add(PermissionEngine, yield* PermissionEngine))
    })
  ).pipe(Layer.provide(local))
  return Layer.merge(routed, own)
}
