import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { type EnvironmentPolicy, SubprocessEnvironment } from "../services/SubprocessEnvironment.js"
import { readOptionalJson } from "./optional-json-file.js"
import { userSettingsFile } from "./sandbox/settings.js"
import { FIXED_ONLY } from "./subprocess-env.js"

const VariableName = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: () => "must be an environment variable's name" })
)

/** The part of the user's `settings.json` this reads: `{"environment": {"pass": ["MY_VAR"]}}`; other keys are others'. */
const SettingsFile = Schema.Struct({
  environment: Schema.optional(Schema.Struct({ pass: Schema.optional(Schema.Array(VariableName)) }))
})
const decodeSettings = Schema.decodeUnknownEither(SettingsFile)

/** `environment` of a parsed settings file; a problem in words when it is malformed. */
export const environmentPolicyOf = (json: unknown): Either.Either<EnvironmentPolicy, string> =>
  Either.match(decodeSettings(json), {
    onLeft: (error) => Either.left(ParseResult.TreeFormatter.formatErrorSync(error)),
    onRight: (settings) => Either.right({ pass: settings.environment?.pass ?? [] })
  })

/**
 * The user's policy, from `settings.json` in their configuration directory only: a workspace's
 * settings never widen what children inherit. A file that cannot be used is said once and
 * passes nothing beyond the fixed allowlist.
 */
export const readUserEnvironmentPolicy = (configDir: string): Effect.Effect<EnvironmentPolicy> => {
  const file = userSettingsFile(configDir)
  const ignored = (problem: string) => Effect.as(Effect.logWarning(`environment setting ignored: ${file}: ${problem}`), FIXED_ONLY)
  return readOptionalJson(file).pipe(
    Effect.flatMap(
      Option.match({
        onNone: () => Effect.succeed(FIXED_ONLY),
        onSome: (json) => Either.match(environmentPolicyOf(json), { onLeft: ignored, onRight: Effect.succeed })
      })
    ),
    Effect.catchTag("JsonFileProblem", ({ problem }) => ignored(problem))
  )
}

export const layer = (configDir: string): Layer.Layer<SubprocessEnvironment> =>
  Layer.effect(SubprocessEnvironment, readUserEnvironmentPolicy(configDir))
