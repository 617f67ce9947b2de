import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { messageOf } from "../domain/cause-message.js"
import { readBoundedSync } from "./bounded-file.js"

/** Why a configuration file could not be used, in words, for a message that names the file. */
export class JsonFileProblem extends Data.TaggedError("JsonFileProblem")<{ readonly problem: string; readonly cause?: unknown }> {}

/**
 * A text file that may not exist: `Option.none()` when it is missing; one that cannot be read,
 * is not a regular file or is over the cap (bounded-file.ts) is a problem.
 */
const readOptionalText = (file: string): Effect.Effect<Option.Option<string>, JsonFileProblem> =>
  Effect.suspend((): Effect.Effect<Option.Option<string>, JsonFileProblem> => {
    const read = readBoundedSync(file)
    switch (read._tag) {
      case "missing":
        return Effect.succeedNone
      case "refused":
        return Effect.fail(new JsonFileProblem({ problem: read.problem }))
      case "text":
        return Effect.succeed(Option.some(read.text))
    }
  })

export const parseJson = (text: string): Effect.Effect<unknown, JsonFileProblem> =>
  Effect.try({
    try: (): unknown => JSON.parse(text),
    catch: (error) => new JsonFileProblem({ problem: `not valid JSON (${messageOf(error)})`, cause: error })
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
