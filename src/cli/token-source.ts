import { Options } from "@effect/cli"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { readBoundedSync } from "../layers/bounded-file.js"
import { CliError, pathProblem, USAGE_EXIT_CODE, usageError } from "./errors.js"

/**
 * Where the server's bearer token comes from: never the command line, which every local user
 * reads (`ps`, `/proc/<pid>/cmdline`). `$CUSTOM_AGENT_TOKEN`, or `--token-file PATH` (a regular
 * file, read bounded; the first line, trimmed). `--token VALUE` is a usage error that names them.
 */

export const TOKEN_ENV = "CUSTOM_AGENT_TOKEN"

/** A token file is one line; anything this large is not one. */
export const TOKEN_FILE_MAX_BYTES = 4096

export const tokenOnCommandLine =
  `--token is refused: a value on the command line is visible to every local user (ps, /proc/<pid>/cmdline); ` +
  `set ${TOKEN_ENV} or pass --token-file PATH instead`

/** Kept as an option only to refuse it with a message that names the safe ways (exit 2). */
const refusedToken = Options.text("token").pipe(
  Options.withPseudoName("VALUE"),
  Options.withDescription(`Refused (the command line is visible to every local user): set $${TOKEN_ENV} or use --token-file`),
  Options.mapEffect(() => Effect.fail(usageError(tokenOnCommandLine))),
  Options.optional
)

const tokenFileOption = (description: string) =>
  Options.text("token-file").pipe(Options.withPseudoName("PATH"), Options.withDescription(description), Options.optional)

const tokenOptions = (description: string) =>
  Options.all({ refused: refusedToken, file: tokenFileOption(description) }).pipe(Options.map(({ file }) => file))

/** `--token-file` of the commands that talk to a server (`--token` refused). */
export const clientTokenFile = tokenOptions(`A file holding the server's bearer token (default: $${TOKEN_ENV})`)

/** `--token-file` of `serve` (`--token` refused). */
export const serverTokenFile = tokenOptions(
  `A file holding the bearer token clients must send (default: $${TOKEN_ENV}, else the one serve keeps in its data directory, made on first use and printed)`
)

/** A token and where it came from, for messages (never the token itself). */
export interface ConfiguredToken {
  readonly value: string
  readonly source: string
}

const fromFile = (path: string): Effect.Effect<ConfiguredToken, CliError> => {
  const read = readBoundedSync(path, TOKEN_FILE_MAX_BYTES)
  switch (read._tag) {
    case "missing":
      return Effect.fail(new CliError({ message: pathProblem("--token-file", "no such file", path), exitCode: USAGE_EXIT_CODE }))
    case "refused":
      return Effect.fail(new CliError({ message: `--token-file ${path} ${read.problem}`, exitCode: 2 }))
    case "text": {
      const value = (read.text.split(/\r?\n/)[0] ?? "").trim()
      return value === ""
        ? Effect.fail(new CliError({ message: `--token-file ${path} is empty: its first line is the token`, exitCode: 2 }))
        : Effect.succeed({ value, source: "--token-file" })
    }
  }
}

/** `--token-file` when given, else `$CUSTOM_AGENT_TOKEN` when set and not empty, else none. */
export const configuredToken = Effect.fn("configuredToken")(function* (tokenFile: Option.Option<string>) {
  if (Option.isSome(tokenFile)) return Option.some(yield* fromFile(tokenFile.value))
  const env = process.env[TOKEN_ENV]
  return env === undefined || env === "" ? Option.none<ConfiguredToken>() : Option.some({ value: env, source: TOKEN_ENV })
})
