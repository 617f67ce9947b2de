import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { join } from "node:path"
import { readOptionalJson } from "../optional-json-file.js"

/** `auto`: bubblewrap where it works, else none (and every shell call asks); `off`: never; `on`: bubblewrap or refuse to start. */
export const SandboxMode = Schema.Literal("auto", "off", "on")
export type SandboxMode = typeof SandboxMode.Type

export class SandboxSettingsError extends Schema.TaggedError<SandboxSettingsError>()("SandboxSettingsError", {
  file: Schema.String,
  problem: Schema.String
}) {
  override get message() {
    return `${this.file}: ${this.problem}`
  }
}

/** The part of a `settings.json` the sandbox reads; other keys belong to others and are ignored. */
const SettingsFile = Schema.Struct({
  sandbox: Schema.optional(
    Schema.Struct({
      network: Schema.optional(Schema.Boolean),
      // The rest is read from the user's own settings only: a project must not weaken the sandbox.
      hide: Schema.optional(Schema.Array(Schema.String)),
      reveal: Schema.optional(Schema.Array(Schema.String)),
      allowUnixSockets: Schema.optional(Schema.Boolean)
    })
  )
})
const decodeSettings = Schema.decodeUnknownEither(SettingsFile)

/** What the user's own `settings.json` says about the sandbox besides the network. */
export interface UserSandboxSettings {
  /** More paths to hide (`~/` is the home directory). */
  readonly hide: ReadonlyArray<string>
  /** Paths hidden by default to show after all. */
  readonly reveal: ReadonlyArray<string>
  /** Let commands create Unix sockets (and so reach the host's, such as ssh-agent's or tmux's). */
  readonly allowUnixSockets: boolean
}

const NO_USER_SETTINGS: UserSandboxSettings = { hide: [], reveal: [], allowUnixSockets: false }

/** The user's sandbox settings besides the network: none when the file or the keys are missing. */
export const readUserSandboxSettings = (file: string): Effect.Effect<UserSandboxSettings, SandboxSettingsError> =>
  readOptionalJson(file).pipe(
    Effect.mapError(({ problem }) => new SandboxSettingsError({ file, problem })),
    Effect.flatMap(
      Option.match({
        onNone: () => Effect.succeed(NO_USER_SETTINGS),
        onSome: (json) =>
          Either.match(decodeSettings(json), {
            onLeft: (error) => Effect.fail(new SandboxSettingsError({ file, problem: ParseResult.TreeFormatter.formatErrorSync(error) })),
            onRight: ({ sandbox }) =>
              Effect.succeed({ hide: sandbox?.hide ?? [], reveal: sandbox?.reveal ?? [], allowUnixSockets: sandbox?.allowUnixSockets ?? false })
          })
      })
    )
  )

/** `sandbox.network` of a parsed settings file: none when the key is missing; a problem in words when malformed. */
export const networkSettingOf = (json: unknown): Either.Either<Option.Option<boolean>, string> =>
  Either.match(decodeSettings(json), {
    onLeft: (error) => Either.left(ParseResult.TreeFormatter.formatErrorSync(error)),
    onRight: (settings) => Either.right(Option.fromNullable(settings.sandbox?.network))
  })

export const userSettingsFile = (configDir: string) => join(configDir, "settings.json")
export const projectSettingsFile = (workspaceRoot: string) => join(workspaceRoot, ".custom-agent", "settings.json")

/** `sandbox.network` of one settings file: none when the file or the key is missing. */
export const readNetworkSetting = (file: string): Effect.Effect<Option.Option<boolean>, SandboxSettingsError> =>
  readOptionalJson(file).pipe(
    Effect.mapError(({ problem }) => new SandboxSettingsError({ file, problem })),
    Effect.flatMap(
      Option.match({
        onNone: () => Effect.succeedNone,
        onSome: (json) => Effect.mapError(networkSettingOf(json), (problem) => new SandboxSettingsError({ file, problem }))
      })
    )
  )

/**
 * The project's say on the sandbox's network (`.custom-agent/settings.json`): the one place a
 * workspace's own files reach the sandbox, kept in one function so trust can gate it.
 */
export const projectNetworkSetting = (workspaceRoot: string): Effect.Effect<Option.Option<boolean>, SandboxSettingsError> =>
  readNetworkSetting(projectSettingsFile(workspaceRoot))
