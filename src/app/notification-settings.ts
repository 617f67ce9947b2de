import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { readOptionalJson } from "../layers/optional-json-file.js"

/** The part of a `settings.json` the notifications read; other keys belong to others. */
const NotificationSettings = Schema.Struct({ notifications: Schema.optional(Schema.Boolean) })
const decode = Schema.decodeUnknownEither(NotificationSettings)

/**
 * Whether a session waiting for an answer raises a notification (the local host's desktop
 * notice, the sessions view's terminal one): on unless the user's settings say
 * `"notifications": false`. A settings file that cannot be read leaves them on: the commands
 * that own the file say what is wrong with it.
 */
export const notificationsOn = (settingsFile: string): Effect.Effect<boolean> =>
  readOptionalJson(settingsFile).pipe(
    Effect.map((json) => {
      if (Option.isNone(json)) return true
      const settings = decode(json.value)
      return Either.isLeft(settings) || settings.right.notifications !== false
    }),
    Effect.orElseSucceed(() => true)
  )
