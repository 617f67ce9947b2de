import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { costOf, packagedPrices, PriceTable } from "../../domain/prices.js"
import type { ModelGatewayShape } from "../../services/ModelGateway.js"
import { readOptionalJson } from "../optional-json-file.js"

export class PriceSettingsError extends Schema.TaggedError<PriceSettingsError>()("PriceSettingsError", {
  file: Schema.String,
  problem: Schema.String
}) {
  override get message() {
    return `${this.file}: prices: ${this.problem}`
  }
}

/**
 * The gateway with each `Completed` priced: a cost the provider reported stands, otherwise the
 * table's price for the model is applied; a model with no price leaves the cost out (a budget
 * in USD then refuses to guess, see the engine).
 */
export const priced = (gateway: ModelGatewayShape, table: PriceTable): ModelGatewayShape => {
  const price = table[gateway.info.id]
  if (price === undefined) return gateway
  return {
    info: gateway.info,
    stream: (request) =>
      Stream.map(gateway.stream(request), (event) =>
        event._tag === "Completed" && event.costUsd === undefined ? { ...event, costUsd: costOf(price, event.usage) } : event
      )
  }
}

/** The part of a `settings.json` prices come from; other keys belong to others. */
const PriceSettings = Schema.Struct({ prices: Schema.optional(PriceTable) })
const decodePriceSettings = Schema.decodeUnknownEither(PriceSettings)

/** The packaged table with the user's `prices` (from `settingsFile`, if it exists) laid over it, model by model. */
export const loadPrices = (settingsFile: string): Effect.Effect<PriceTable, PriceSettingsError> =>
  readOptionalJson(settingsFile).pipe(
    Effect.mapError(({ problem }) => new PriceSettingsError({ file: settingsFile, problem })),
    Effect.flatMap(
      Option.match({
        onNone: () => Effect.succeed(packagedPrices),
        onSome: (json) =>
          Either.match(decodePriceSettings(json), {
            onLeft: (error) => Effect.fail(new PriceSettingsError({ file: settingsFile, problem: ParseResult.TreeFormatter.formatErrorSync(error) })),
            onRight: (settings) => Effect.succeed({ ...packagedPrices, ...settings.prices })
          })
      })
    )
  )
