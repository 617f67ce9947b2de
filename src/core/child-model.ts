import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type { AgentDefinition } from "../services/Agents.js"
import type { ModelGatewayShape } from "../services/ModelGateway.js"
import { ModelUnavailable, type ModelResolverShape } from "../services/ModelResolver.js"

/** Gives the model a subagent's turn asks, its gateway living as long as the scope (the turn's run). */
export type ChildModel = (agent: AgentDefinition, parentModel: ModelGatewayShape) => Effect.Effect<ModelGatewayShape, ModelUnavailable, Scope.Scope>

/**
 * The model a child asks: its definition's (a gateway resolved for the child's run), else its
 * parent's. An engine without a resolver offers only its own model and the parent's.
 */
export const childModel =
  (gateway: ModelGatewayShape, resolver: Option.Option<ModelResolverShape>): ChildModel =>
  (agent, parentModel) => {
    const wanted = agent.model
    if (wanted === undefined || wanted === parentModel.info.id) return Effect.succeed(parentModel)
    if (wanted === gateway.info.id) return Effect.succeed(gateway)
    const chosen = [gateway.info.provider, parentModel.info.provider]
    const resolved = Option.isSome(resolver)
      ? Effect.filterOrFail(
          resolver.value.resolve(wanted),
          // A project's files (the agent may have written them) must not send the session's work to a provider the user did not choose.
          (model) => agent.source === "user" || chosen.includes(model.info.provider),
          (model) =>
            new ModelUnavailable({
              model: wanted,
              message: `a project's definition may name only models of the session's provider (${[...new Set(chosen)].join(" or ")}), not ${model.info.provider}; a definition in your own agents folder may name one of another provider`
            })
        )
      : Effect.fail(new ModelUnavailable({ model: wanted, message: `this engine has no models but ${gateway.info.id}` }))
    return Effect.mapError(
      resolved,
      (error) =>
        new ModelUnavailable({
          model: wanted,
          message: `its definition (${agent.path}) names the model ${wanted}, which cannot be used: ${error.message}`,
          cause: error
        })
    )
  }
