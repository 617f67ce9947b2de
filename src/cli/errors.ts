import * as Schema from "effect/Schema"

/** A user-facing failure: one line on stderr and a non-zero exit, never a stack trace. */
export class CliError extends Schema.TaggedError<CliError>()("CliError", {
  message: Schema.String,
  exitCode: Schema.optionalWith(Schema.Number, { default: () => 1 })
}) {}
