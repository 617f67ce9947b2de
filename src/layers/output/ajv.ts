import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { ErrorObject, ValidateFunction } from "ajv"
import { messageOf } from "../../domain/cause-message.js"
import { OutputSchemaInvalid, OutputValidator, type OutputValidatorShape } from "../../services/OutputValidator.js"

// Formats are not checked (that takes ajv-formats); `logger: false` keeps ajv from writing to the console about them.
const options = { allErrors: true, strict: false, logger: false } as const

// Loaded on first use: most runs have no output schema, and ajv costs start-up time.
const loadAjv = Effect.promise(() => Promise.all([import("ajv"), import("ajv/dist/2020.js")]))

/** Compiles a JSON Schema (draft 2020-12 when its `$schema` says so, else draft-07, effect's JSONSchema output); one ajv cannot compile is a typed error. */
export const compileSchema = (schema: Readonly<Record<string, unknown>>): Effect.Effect<ValidateFunction, OutputSchemaInvalid> =>
  // ajv is CommonJS: its `module.exports` (the default export here, bundled or not) carries the classes.
  Effect.flatMap(loadAjv, ([{ default: { Ajv } }, { default: { Ajv2020 } }]) =>
    Effect.try({
      try: () =>
        (typeof schema["$schema"] === "string" && schema["$schema"].includes("2020-12") ? new Ajv2020(options) : new Ajv(options)).compile(schema),
      catch: (error) => new OutputSchemaInvalid({ problem: messageOf(error), cause: error })
    })
  )

/** One line per problem: where in the value (`/` for the whole) and what is wrong. */
export const describeErrors = (errors: ReadonlyArray<ErrorObject> | null | undefined): ReadonlyArray<string> =>
  (errors ?? []).map((error) => {
    const where = error.instancePath === "" ? "/" : error.instancePath
    const extra = error.keyword === "additionalProperties" && "additionalProperty" in error.params ? ` (${String(error.params["additionalProperty"])})` : ""
    return `${where}: ${error.message ?? error.keyword}${extra}`
  })

/**
 * The ajv validator. Compiled schemas are kept per schema object (weakly: a turn's terms hold
 * theirs), so a turn that asks again does not compile again.
 */
export const make = (): OutputValidatorShape => {
  const compiled = new WeakMap<object, ValidateFunction>()
  const validatorOf = (schema: Readonly<Record<string, unknown>>) => {
    const known = compiled.get(schema)
    if (known !== undefined) return Effect.succeed(known)
    return Effect.tap(compileSchema(schema), (validate) => {
      compiled.set(schema, validate)
    })
  }
  return {
    problems: (schema, value) => Effect.map(validatorOf(schema), (validate) => (validate(value) ? [] : describeErrors(validate.errors)))
  }
}

export const layer = Layer.sync(OutputValidator, make)
