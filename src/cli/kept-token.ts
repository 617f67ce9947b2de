import * as Effect from "effect/Effect"
import { randomBytes } from "node:crypto"
import { lstatSync } from "node:fs"
import { join } from "node:path"
import { messageOf } from "../domain/cause-message.js"
import { createOwnPrivateFileSync, readOwnPrivateFileSync, replaceOwnPrivateFileSync } from "../layers/own-private-file.js"
import { claimDataDir } from "../layers/private-files.js"
import { CliError } from "./errors.js"
import { TOKEN_FILE_MAX_BYTES } from "./token-source.js"

/**
 * The token `serve` makes up when none is configured, kept in the data directory so that a
 * restarted server accepts the pages and clients it served before. The file is the user's
 * alone (0600, in the 0700 data directory); one that is a link, someone else's, or readable by
 * anyone else is refused, never used and never repaired. `--rotate-token` replaces it: every
 * holder of the old token is refused from then on.
 */

export const KEPT_TOKEN_NAME = "server-token"

export const keptTokenFile = (dataDir: string) => join(dataDir, KEPT_TOKEN_NAME)

export interface KeptToken {
  readonly value: string
  readonly file: string
  /** Made by this start: the file was not there, or `--rotate-token` asked for a new one. */
  readonly fresh: boolean
}

const newToken = () => randomBytes(24).toString("base64url")

const failure = (file: string, problem: string) =>
  new CliError({
    message: `the server token file ${file} ${problem}: remove it (serve makes a new one), or set CUSTOM_AGENT_TOKEN or pass --token-file PATH`
  })

const attempt = <A>(what: string, run: () => A) =>
  Effect.try({ try: run, catch: (error) => new CliError({ message: `cannot ${what}: ${messageOf(error)}`, cause: error }) })

type KeptRead = { readonly _tag: "missing" } | { readonly _tag: "refused"; readonly problem: string } | { readonly _tag: "token"; readonly value: string }

const readKeptSync = (file: string): KeptRead => {
  const read = readOwnPrivateFileSync(file, TOKEN_FILE_MAX_BYTES)
  if (read._tag !== "text") return read
  const value = (read.text.split(/\r?\n/)[0] ?? "").trim()
  return value === "" ? { _tag: "refused", problem: "is empty" } : { _tag: "token", value }
}

/** The token in the file, or none when no file is there; a file that must not be trusted is an error. */
const readKept = (file: string): Effect.Effect<string | undefined, CliError> => {
  const read = readKeptSync(file)
  switch (read._tag) {
    case "missing":
      return Effect.succeed(undefined)
    case "refused":
      return Effect.fail(failure(file, read.problem))
    case "token":
      return Effect.succeed(read.value)
  }
}

/**
 * The kept token as the file holds it now, for a running server to check each request
 * against: a `serve --rotate-token` on the same data directory (another process) replaces the
 * file, and from then on only the new token opens this server too. Asked per request: one
 * `lstat`, and a read only when the file changed. A file gone, or one that must not be trusted
 * any more, gives none: every request is refused until the server restarts.
 */
export const followKeptToken = (kept: KeptToken): (() => string | undefined) => {
  const identity = () => {
    const stat = lstatSync(kept.file, { throwIfNoEntry: false, bigint: true })
    return stat === undefined ? "" : `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`
  }
  // Read again at the first request: the file may have changed since `kept` was read.
  let seen: string | undefined
  let current: string | undefined
  return () => {
    const now = identity()
    if (now === seen) return current
    seen = now
    const read = readKeptSync(kept.file)
    current = read._tag === "token" ? read.value : undefined
    return current
  }
}

/** The kept token of `dataDir`: read, made when missing, or replaced when `rotate`. */
export const keptToken = (dataDir: string, rotate: boolean): Effect.Effect<KeptToken, CliError> =>
  Effect.gen(function* () {
    const file = keptTokenFile(dataDir)
    yield* Effect.mapError(claimDataDir(dataDir), (refused) => new CliError({ message: refused.message, cause: refused }))
    if (rotate) {
      const value = newToken()
      yield* attempt(`replace the server token file ${file}`, () => replaceOwnPrivateFileSync(file, `${value}\n`))
      return { value, file, fresh: true }
    }
    const kept = yield* readKept(file)
    if (kept !== undefined) return { value: kept, file, fresh: false }
    const value = newToken()
    if (yield* attempt(`create the server token file ${file}`, () => createOwnPrivateFileSync(file, `${value}\n`))) return { value, file, fresh: true }
    // Another server on this data directory made one meanwhile: that one is the token.
    const theirs = yield* readKept(file)
    return theirs === undefined ? yield* failure(file, "disappeared while it was made") : { value: theirs, file, fresh: false }
  })
