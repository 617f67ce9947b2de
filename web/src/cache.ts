import { Option, Schema } from "effect"
import { TimelineState } from "./timeline.js"

/**
 * A session's view kept in sessionStorage, so a reload resumes from its last sequence
 * instead of replaying the whole session. Bump `version` when the view's meaning changes.
 */
const Cached = Schema.parseJson(Schema.Struct({ version: Schema.Literal(6), state: TimelineState }))
const decode = Schema.decodeUnknownOption(Cached)
const encode = Schema.encodeSync(Cached)

const prefix = "custom-agent:timeline:"
const keyOf = (sessionId: string) => `${prefix}${sessionId}`

/** The saved view of a session; none when absent, unreadable or from another version. */
export const restore = (sessionId: string): Option.Option<TimelineState> =>
  decode(sessionStorage.getItem(keyOf(sessionId))).pipe(
    Option.map((cached) => cached.state),
    Option.filter((state) => state.sessionId === sessionId)
  )

const write = (key: string, value: string): boolean => {
  try {
    sessionStorage.setItem(key, value)
    return true
  } catch {
    // Storage is full (or disabled): the caller makes room or gives up.
    return false
  }
}

/**
 * Saves a view. When storage is full the views of other sessions make room (they replay in
 * full when reopened); if it still does not fit, this one is dropped too.
 */
export const save = (state: TimelineState): void => {
  const key = keyOf(state.sessionId)
  const value = encode({ version: 6, state })
  if (write(key, value)) return
  for (const stored of Object.keys(sessionStorage)) {
    if (stored.startsWith(prefix)) sessionStorage.removeItem(stored)
  }
  if (!write(key, value)) console.warn(`the view of ${state.sessionId} is too large to keep: a reload replays it in full`)
}
