import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"

/** A model adapter cannot start: a variable is missing or malformed. Raised before any request. */
export class ModelConfigError extends Schema.TaggedError<ModelConfigError>()("ModelConfigError", {
  /** The environment variable (or option) at fault. */
  variable: Schema.String,
  message: Schema.String,
  /** The failure underneath, when there was one, kept for whoever handles or logs this. */
  cause: Schema.optional(Schema.Defect)
}) {}

/** A variable that may be unset; blank counts as unset. */
export const optionalVariable = (name: string): Effect.Effect<Option.Option<string>, ModelConfigError> =>
  Config.option(Config.string(name)).pipe(
    Effect.map(Option.flatMap((value) => {
      const trimmed = value.trim()
      return trimmed === "" ? Option.none() : Option.some(trimmed)
    })),
    Effect.mapError((error) => new ModelConfigError({ variable: name, message: `${name} could not be read: ${String(error)}`, cause: error }))
  )

/** A secret that must be set (and not blank). */
export const requiredSecret = (name: string): Effect.Effect<Redacted.Redacted<string>, ModelConfigError> =>
  optionalVariable(name).pipe(
    Effect.flatMap(Option.match({
      onNone: () => Effect.fail(new ModelConfigError({ variable: name, message: `${name} is not set` })),
      onSome: (value) => Effect.succeed(Redacted.make(value))
    }))
  )

/** An optional http(s) URL, trailing slashes removed. */
export const optionalUrl = (name: string): Effect.Effect<Option.Option<string>, ModelConfigError> =>
  optionalVariable(name).pipe(
    Effect.flatMap(Option.match({
      onNone: () => Effect.succeed(Option.none<string>()),
      onSome: (value) => {
        const parsed = URL.canParse(value) ? new URL(value) : undefined
        return parsed !== undefined && (parsed.protocol === "http:" || parsed.protocol === "https:")
          ? Effect.succeed(Option.some(value.replace(/\/+$/, "")))
          : Effect.fail(new ModelConfigError({ variable: name, message: `${name} is not an http(s) URL: ${value}` }))
      }
    }))
  )

/** An optional positive integer. */
export const optionalPositiveInt = (name: string): Effect.Effect<Option.Option<number>, ModelConfigError> =>
  optionalVariable(name).pipe(
    Effect.flatMap(Option.match({
      onNone: () => Effect.succeed(Option.none<number>()),
      onSome: (value) => {
        const parsed = Number(value)
        return Number.isSafeInteger(parsed) && parsed > 0
          ? Effect.succeed(Option.some(parsed))
          : Effect.fail(new ModelConfigError({ variable: name, message: `${name} must be a positive integer, got ${value}` }))
      }
    }))
  )
