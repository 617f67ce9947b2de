import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv"
import { Ajv2020 } from "ajv/dist/2020.js"
import { messageOf } from "../../domain/cause-message.js"
import { OutputSchemaInvalid, OutputValidator, type OutputValidatorShape } from "../../services/OutputValidator.js"

// Formats are not checked (that takes ajv-formats); `logger: false` keeps ajv from writing to the console about them.
const options = { allErrors: true, strict: false, logger: false } as const

/** Draft 2020-12 when the schema says so, draft-07 (ajv's default, and effect's JSONSchema output) otherwise. */
const compilerFor = (schema: Readonly<Record<string, unknown>>): Ajv | Ajv2020 =>
  typeof schema["$schema"] === "string" && schema["$schema"].includes("2020-12") ? new Ajv2020(options) : new Ajv(options)

/** Compiles a JSON Schema once; a schema ajv cannot compile is a typed error. */
export const compileSchema = (schema: Readonly<Record<string, unknown>>): Effect.Effect<ValidateFunction, OutputSchemaInvalid> =>
  Effect.try({
    try: () => compilerFor(schema).compile(schema),
    catch: (error) => new OutputSchemaInvalid({ problem: messageOf(error) })
  })

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
