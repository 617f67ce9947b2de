import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { readOptionalJson } from "../optional-json-file.js"
import { userSettingsFile } from "../sandbox/settings.js"

/** How long a session's first model step waits for its MCP servers to start, by default. */
export const DEFAULT_STARTUP_WAIT_MS = 10_000

/** The environment variable that sets the wait, in milliseconds, as Claude Code's `MCP_TIMEOUT` does. */
export const STARTUP_WAIT_VARIABLE = "MCP_TIMEOUT"

/** Ten minutes: longer is a mistake, not a wait (a server has its own `startupTimeout`). */
const MAX_WAIT_MS = 600_000

const WaitMs = Schema.Number.pipe(
  Schema.int({ message: () => "must be a whole number of milliseconds" }),
  Schema.between(0, MAX_WAIT_MS, { message: () => `must be between 0 and ${MAX_WAIT_MS} (milliseconds)` })
)

/** The part of the user's `settings.json` this reads: `{"mcp": {"startupWait": 10000}}`; other keys are others'. */
const WaitSettings = Schema.Struct({ mcp: Schema.optional(Schema.Struct({ startupWait: Schema.optional(WaitMs) })) })
const decodeSettings = Schema.decodeUnknownEither(WaitSettings)
const decodeWait = Schema.decodeUnknownEither(WaitMs)

const problemOf = (error: ParseResult.ParseError) => ParseResult.TreeFormatter.formatErrorSync(error)

/**
 * How long the first model step of a session waits for its MCP servers (0: not at all):
 * `MCP_TIMEOUT` in the environment, else `mcp.startupWait` in the user's `settings.json`,
 * else 10 s. A value that cannot be used is said (a warning naming it) and the next source
 * applies; a workspace's settings have no say.
 */
export const readStartupWait = (configDir: string, env: NodeJS.ProcessEnv): Effect.Effect<number> =>
  Effect.gen(function* () {
    const variable = env[STARTUP_WAIT_VARIABLE]
    if (variable !== undefined && variable.trim() !== "") {
      const decoded = decodeWait(Number(variable))
      if (Either.isRight(decoded)) return decoded.right
      yield* Effect.logWarning(`${STARTUP_WAIT_VARIABLE}=${JSON.stringify(variable)} ignored: ${problemOf(decoded.left)}`)
    }
    const file = userSettingsFile(configDir)
    const ignored = (problem: string) => Effect.as(Effect.logWarning(`MCP start-up wait setting ignored: ${file}: ${problem}`), DEFAULT_STARTUP_WAIT_MS)
    return yield* readOptionalJson(file).pipe(
      Effect.flatMap(
        Option.match({
          onNone: () => Effect.succeed(DEFAULT_STARTUP_WAIT_MS),
          onSome: (json) =>
            Either.match(decodeSettings(json), {
              onLeft: (error) => ignored(problemOf(error)),
              onRight: (settings) => Effect.succeed(settings.mcp?.startupWait ?? DEFAULT_STARTUP_WAIT_MS)
            })
        })
      ),
      Effect.catchTag("JsonFileProblem", ({ problem }) => ignored(problem))
    )
  })
