import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import type { Readable } from "node:stream"

export class BodyTooLarge extends Data.TaggedError("BodyTooLarge")<{ readonly limit: number }> {}

export class BodyUnreadable extends Data.TaggedError("BodyUnreadable")<{ readonly reason: string; readonly cause?: unknown }> {}

/**
 * After the limit, what the client still sends is read and dropped rather than left unread:
 * closing a socket with unread bytes resets it, and the client may never see the 413. A
 * client that keeps sending past this many more bytes is cut off.
 */
const dropThenClose = (source: Readable, limit: number) => {
  let dropped = 0
  const onData = (chunk: Buffer) => {
    dropped += chunk.length
    if (dropped <= limit) return
    source.off("data", onData)
    source.destroy()
  }
  source.on("data", onData)
  source.once("end", () => source.off("data", onData))
}

/**
 * A request body as UTF-8 text, whatever its framing (a declared length or chunks), keeping
 * at most `maxBytes`: a larger body fails with BodyTooLarge as soon as it passes the limit,
 * without waiting for (or holding) the rest. Interrupted, it stops listening.
 */
export const readBody = (source: Readable, maxBytes: number): Effect.Effect<string, BodyTooLarge | BodyUnreadable> =>
  Effect.async((resume) => {
    const chunks: Array<Buffer> = []
    let received = 0
    const stop = () => {
      source.off("data", onData)
      source.off("end", onEnd)
      source.off("error", onError)
      source.off("close", onClose)
    }
    const onData = (chunk: Buffer) => {
      received += chunk.length
      if (received <= maxBytes) {
        chunks.push(chunk)
        return
      }
      stop()
      chunks.length = 0
      dropThenClose(source, maxBytes)
      resume(Effect.fail(new BodyTooLarge({ limit: maxBytes })))
    }
    const onEnd = () => {
      stop()
      resume(Effect.succeed(Buffer.concat(chunks).toString("utf8")))
    }
    const onError = (error: Error) => {
      stop()
      resume(Effect.fail(new BodyUnreadable({ reason: error.message, cause: error })))
    }
    // Closed before its end: the client went away mid-body.
    const onClose = () => {
      stop()
      resume(Effect.fail(new BodyUnreadable({ reason: "the connection closed before the body ended" })))
    }
    source.on("data", onData)
    source.once("end", onEnd)
    source.once("error", onError)
    source.once("close", onClose)
    return Effect.sync(stop)
  })
