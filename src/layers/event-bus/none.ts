import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { EventBus } from "../../services/EventBus.js"

/**
 * An EventBus that publishes nowhere: for a wiring with no subscribers (the local CLI, an
 * embedder reading `runTurn` alone). The real one is the host's fan-out (`host/fanout.ts`).
 */
export const noEventBus: Layer.Layer<EventBus> = Layer.succeed(EventBus, EventBus.of({ publish: () => Effect.void, status: () => Effect.void }))
