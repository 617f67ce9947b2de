import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type { ModelGatewayShape } from "../services/ModelGateway.js"
import type { ModelResolverShape, ModelUnavailable } from "../services/ModelResolver.js"

/**
 * The gateway a session's turn asks: the session's model (its `session.created`, or its last
 * `session.model_changed`), so a session keeps its model whichever process continues it. The
 * engine's own gateway serves it when it is that model (or the log names none); another is
 * resolved for the scope (the turn). An engine without a resolver (an embedder's) has only its
 * own model and asks it for every session.
 */
export const sessionModel = (
  gateway: ModelGatewayShape,
  resolver: Option.Option<ModelResolverShape>,
  model: string | undefined
): Effect.Effect<ModelGatewayShape, ModelUnavailable, Scope.Scope> =>
  model === undefined || model === gateway.info.id || Option.isNone(resolver) ? Effect.succeed(gateway) : resolver.value.resolve(model)
