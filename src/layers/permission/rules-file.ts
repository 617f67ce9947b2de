import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { type PermissionRule, PermissionsFile } from "../../domain/permissions.js"
import { readOptionalJson } from "../optional-json-file.js"
import { globProblem } from "../patterns/glob.js"

export class PermissionsFileError extends Schema.TaggedError<PermissionsFileError>()("PermissionsFileError", {
  file: Schema.String,
  problem: Schema.String
}) {
  override get message() {
    return `${this.file}: ${this.problem}`
  }
}

const decode = Schema.decodeUnknownEither(PermissionsFile)

/**
 * The rules of a parsed permissions file, or an error naming the file and each problem. A glob
 * the rules cannot match with (see patterns/glob.ts) is a problem too, never a rule ignored.
 */
export const decodeRules = (file: string, json: unknown): Effect.Effect<ReadonlyArray<PermissionRule>, PermissionsFileError> =>
  decode(json).pipe(
    Effect.mapError((error) =>
      new PermissionsFileError({
        file,
        problem: ParseResult.ArrayFormatter.formatErrorSync(error)
          .map((issue) => `${issue.path.join(".") || "file"}: ${issue.message}`)
          .join("; ")
      })
    ),
    Effect.flatMap((parsed) => {
      const problems = parsed.rules.flatMap((rule, i) =>
        (["tool", "path"] as const).flatMap((field) => {
          const pattern = rule[field]
          const problem = pattern === undefined ? undefined : globProblem(pattern)
          return problem === undefined ? [] : [`rules.${i}.${field}: not a usable glob: ${problem}`]
        })
      )
      return problems.length === 0 ? Effect.succeed(parsed.rules) : Effect.fail(new PermissionsFileError({ file, problem: problems.join("; ") }))
    })
  )

/** Reads a permissions file; a missing file has no rules, a malformed one is an error naming it. */
export const loadRulesFile = (file: string): Effect.Effect<ReadonlyArray<PermissionRule>, PermissionsFileError> =>
  readOptionalJson(file).pipe(
    Effect.mapError(({ problem }) => new PermissionsFileError({ file, problem })),
    Effect.flatMap(
      Option.match({
        onNone: () => Effect.succeed([]),
        onSome: (json) => decodeRules(file, json)
      })
    )
  )
