import { HelpDoc, ValidationError } from "@effect/cli"
import * as Schema from "effect/Schema"
import { paragraphsOf } from "./command-tree.js"

/** A user-facing failure: one line on stderr and a non-zero exit, never a stack trace. */
export class CliError extends Schema.TaggedError<CliError>()("CliError", {
  message: Schema.String,
  exitCode: Schema.optionalWith(Schema.Number, { default: () => 1 }),
  /** The failure underneath, when there was one, kept for whoever handles or logs this. */
  cause: Schema.optional(Schema.Defect)
}) {}

/** The exit code of a usage error (a mistake on the command line), as the README promises. */
export const USAGE_EXIT_CODE = 2

/** A value an option cannot take, found while parsing it: a usage error (exit 2) with this message. */
export const usageError = (message: string): ValidationError.ValidationError => ValidationError.invalidValue(HelpDoc.p(message))

/** What a usage error says, as one line. */
export const usageMessage = (error: ValidationError.ValidationError): string => paragraphsOf(error.error).join(" ")

/**
 * The one wording for a path given on the command line that is not there, or not what was
 * asked for: `--script: no such file: PATH`. `label` is the option (`--script`) or the argument
 * (`<file>`) that named it.
 */
export const pathProblem = (label: string, problem: "no such file" | "no such directory" | "not a file" | "not a directory", path: string) =>
  `${label}: ${problem}: ${path}`
