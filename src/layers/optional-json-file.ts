import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { readFile } from "node:fs/promises"
import { messageOf } from "../domain/cause-message.js"

/** Why a configuration file could not be used, in words, for a message that names the file. */
export class JsonFileProblem extends Data.TaggedError("JsonFileProblem")<{ readonly problem: string }> {}

const isMissing = (error: unknown) => typeof error === "object" && error !== null && "code" in error && error.code === "ENOENT"

/** A text file that may not exist: `Option.none()` when it is missing; one that cannot be read is a problem. */
const readOptionalText = (file: string): Effect.Effect<Option.Option<string>, JsonFileProblem> =>
  Effect.tryPromise({ try: () => readFile(file, "utf8"), catch: (error) => error }).pipe(
    Effect.map((text): Option.Option<string> => Option.some(text)),
    Effect.catchAll((error) =>
      isMissing(error)
        ? Effect.succeed(Option.none<string>())
        : Effect.fail(new JsonFileProblem({ problem: `cannot be read (${messageOf(error)})` }))
    )
  )

export const parseJson = (text: string): Effect.Effect<unknown, JsonFileProblem> =>
  Effect.try({
    try: (): unknown => JSON.parse(text),
    catch: (error) => new JsonFileProblem({ problem: `not valid JSON (${messageOf(error)})` })
  })

/**
 * Reads and parses a JSON file that may not exist: `Option.none()` when it is missing; a
 * file that cannot be read, or is not JSON, is a problem the caller reports with its name.
 */
export const readOptionalJson = (file: string): Effect.Effect<Option.Option<unknown>, JsonFileProblem> =>
  Effect.flatMap(
    readOptionalText(file),
    Option.match({ onNone: () => Effect.succeedNone, onSome: (text) => Effect.map(parseJson(text), Option.some) })
  )
