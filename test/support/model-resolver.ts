import { Effect, Layer, Stream } from "effect"
import type { ModelRequest } from "../../src/domain/model.js"
import * as Scripted from "../../src/layers/model/scripted.js"
import { ModelGateway, type ModelGatewayShape } from "../../src/services/ModelGateway.js"
import { ModelResolver, ModelUnavailable } from "../../src/services/ModelResolver.js"

/** What the resolver saw: the ids asked for, the gateways still held, and each request by the id that answered it. */
export interface Ledger {
  readonly asked: Array<string>
  readonly held: Set<string>
  readonly requests: Array<{ readonly model: string; readonly request: ModelRequest }>
}

export const newLedger = (): Ledger => ({ asked: [], held: new Set(), requests: [] })

/** The script's responses under another model's id: what a gateway for that model would answer. */
const renamed = (inner: ModelGatewayShape, id: string, ledger: Ledger): ModelGatewayShape => ({
  info: { ...inner.info, id, provider: id.split("/")[0] ?? id },
  stream: (request) => Stream.suspend(() => (ledger.requests.push({ model: id, request }), inner.stream(request)))
})

/** A resolver for `known` model ids, each gateway held for the scope it is resolved in; other ids fail like a missing key. */
export const resolverLayer = (script: Scripted.Script, known: ReadonlyArray<string>, ledger: Ledger) =>
  Layer.effect(
    ModelResolver,
    Effect.map(Effect.orDie(Scripted.make(script)), (inner) =>
      ModelResolver.of({
        resolve: (model) =>
          Effect.suspend(() => {
            ledger.asked.push(model)
            if (!known.includes(model)) return Effect.fail(new ModelUnavailable({ model, message: "OPENAI_API_KEY is not set" }))
            return Effect.acquireRelease(
              Effect.sync(() => (ledger.held.add(model), renamed(inner, model, ledger))),
              () => Effect.sync(() => ledger.held.delete(model))
            )
          })
      })
    )
  )

/** The engine's own model: the script's top-level responses under `id`, its requests in the ledger. */
export const renamedModelLayer = (script: Scripted.Script, id: string, ledger: Ledger) =>
  Layer.effect(ModelGateway, Effect.map(Effect.orDie(Scripted.make(script)), (inner) => renamed(inner, id, ledger)))
