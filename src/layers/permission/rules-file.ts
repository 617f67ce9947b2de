import { Effect, ParseResult, Schema } from "effect"
import { readFile } from "node:fs/promises"
import { type PermissionRule, PermissionsFile } from "../../domain/permissions.js"

export class PermissionsFileError extends Schema.TaggedError<PermissionsFileError>()("PermissionsFileError", {
  file: Schema.String,
  problem: Schema.String
}) {
  override get message() {
    return `${this.file}: ${this.problem}`
  }
}

const decode = Schema.decodeUnknownEither(PermissionsFile)

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error))

/** Reads a permissions file; a missing file has no rules, a malformed one is an error naming it. */
export const loadRulesFile = (file: string): Effect.Effect<ReadonlyArray<PermissionRule>, PermissionsFileError> =>
  Effect.tryPromise({
    try: () => readFile(file, "utf8"),
    catch: (error) => error
  }).pipe(
    Effect.catchAll((error) =>
      typeof error === "object" && error !== null && "code" in error && error.code === "ENOENT"
        ? Effect.succeed(undefined)
        : Effect.fail(new PermissionsFileError({ file, problem: `cannot be read (${errorText(error)})` }))
    ),
    Effect.flatMap((text) => {
      if (text === undefined) return Effect.succeed([])
      let json: unknown
      try {
        json = JSON.parse(text)
      } catch (error) {
        return Effect.fail(new PermissionsFileError({ file, problem: `not valid JSON (${errorText(error)})` }))
      }
      return decode(json).pipe(
        Effect.map((parsed) => parsed.rules),
        Effect.mapError((error) =>
          new PermissionsFileError({
            file,
            problem: ParseResult.ArrayFormatter.formatErrorSync(error)
              .map((issue) => `${issue.path.join(".") || "file"}: ${issue.message}`)
              .join("; ")
          })
        )
      )
    })
  )
