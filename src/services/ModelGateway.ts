import * as Context from "effect/Context"
import type * as Stream from "effect/Stream"
import type { ModelError } from "../domain/errors.js"
import type { ModelInfo, ModelRequest, ModelStreamEvent } from "../domain/model.js"

/**
 * A model behind normalized stream events. Adapters own everything provider-specific:
 * wire formats, retries, preflight token estimates, error mapping. A stream ends with one
 * `Completed` event or fails with a ModelError; interrupting it aborts the request.
 */
export interface ModelGatewayShape {
  readonly info: ModelInfo
  readonly stream: (request: ModelRequest) => Stream.Stream<ModelStreamEvent, ModelError>
}

export class ModelGateway extends Context.Tag("custom-agent/ModelGateway")<ModelGateway, ModelGatewayShape>() {}
