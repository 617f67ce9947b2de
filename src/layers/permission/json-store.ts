import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { PermissionStoreError } from "../../services/PermissionEngine.js"
import { readOptionalJson } from "../optional-json-file.js"
import { writePrivateFile } from "../private-files.js"
import { messageOf } from "../../domain/cause-message.js"

/** One of the permission engine's files in the data directory, decoded; none when it does not exist yet. */
export const loadStoreFile = <A, I>(file: string, schema: Schema.Schema<A, I>, what: string): Effect.Effect<Option.Option<A>, PermissionStoreError> =>
  readOptionalJson(file).pipe(
    Effect.mapError(({ problem }) => new PermissionStoreError({ message: `${file}: ${problem}` })),
    Effect.flatMap(
      Option.match({
        onNone: () => Effect.succeedNone,
        onSome: (json) =>
          Schema.decodeUnknown(schema)(json).pipe(
            Effect.map(Option.some),
            Effect.mapError((error) => new PermissionStoreError({ message: `${file}: malformed ${what} (${error.message})`, cause: error }))
          )
      })
    )
  )

/** Writes the whole file, private to the user, through a temporary name: a crash never leaves half a file. */
export const saveStoreFile = (file: string, content: unknown) =>
  Effect.tryPromise({
    try: () => writePrivateFile(file, `${JSON.stringify(content, null, 2)}\n`),
    catch: (error) => new PermissionStoreError({ message: `${file}: cannot be written (${messageOf(error)})`, cause: error })
  })
