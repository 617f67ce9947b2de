import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type { ModelGatewayShape } from "./ModelGateway.js"

export class ModelUnavailable extends Schema.TaggedError<ModelUnavailable>()("ModelUnavailable", {
  /** The model id asked for (`anthropic/<id>`, `openai/<id>`, `scripted`). */
  model: Schema.String,
  message: Schema.String,
  cause: Schema.optional(Schema.Defect)
}) {}

/**
 * Gateways for models other than the engine's own, by id: a subagent whose definition names a
 * model asks through one. A gateway lives as long as the scope it was resolved in (the child's
 * run), so nothing is kept per model once the child has answered.
 */
export interface ModelResolverShape {
  readonly resolve: (model: string) => Effect.Effect<ModelGatewayShape, ModelUnavailable, Scope.Scope>
}

export class ModelResolver extends Context.Tag("custom-agent/ModelResolver")<ModelResolver, ModelResolverShape>() {}
