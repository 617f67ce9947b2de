import { Context, Effect, Layer, Ref, Stream } from "effect"
import type { ModelRequest } from "../../src/domain/model.js"
import * as Scripted from "../../src/layers/model/scripted.js"
import { ModelGateway } from "../../src/services/ModelGateway.js"

/** Every request the model was sent, in order. */
export class RecordedRequests extends Context.Tag("test/RecordedRequests")<RecordedRequests, Ref.Ref<ReadonlyArray<ModelRequest>>>() {}

/** The scripted model, recording each request before it answers. */
export const recordingScripted = (script?: Scripted.Script) =>
  Layer.effectContext(
    Effect.gen(function* () {
      const inner = yield* Scripted.make(script)
      const requests = yield* Ref.make<ReadonlyArray<ModelRequest>>([])
      const gateway = ModelGateway.of({
        info: inner.info,
        stream: (request) => Stream.unwrap(Effect.as(Ref.update(requests, (all) => [...all, request]), inner.stream(request)))
      })
      return Context.make(ModelGateway, gateway).pipe(Context.add(RecordedRequests, requests))
    })
  )
