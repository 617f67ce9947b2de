import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Hooks } from "../../services/Hooks.js"

/** No hooks configured anywhere: nothing runs, nothing is listed. */
export const noHooks: Layer.Layer<Hooks> = Layer.succeed(
  Hooks,
  Hooks.of({
    run: () => Effect.succeed([]),
    list: () => Effect.succeed({ hooks: [], ignored: [], problems: [] })
  })
)
