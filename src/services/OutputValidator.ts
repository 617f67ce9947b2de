import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/** The output schema itself is not a JSON Schema the validator can use. */
export class OutputSchemaInvalid extends Schema.TaggedError<OutputSchemaInvalid>()("OutputSchemaInvalid", {
  problem: Schema.String,
  /** The failure underneath, when there was one, kept for whoever handles or logs this. */
  cause: Schema.optional(Schema.Defect)
}) {
  override get message() {
    return `the output schema is not a usable JSON Schema: ${this.problem}`
  }
}

/** Validates JSON values against a JSON Schema (the contract of `run --output-schema`). */
export interface OutputValidatorShape {
  /** The ways `value` breaks `schema`, one line each (`/path: message`); empty when it validates. */
  readonly problems: (schema: Readonly<Record<string, unknown>>, value: unknown) => Effect.Effect<ReadonlyArray<string>, OutputSchemaInvalid>
}

export class OutputValidator extends Context.Tag("custom-agent/OutputValidator")<OutputValidator, OutputValidatorShape>() {}
