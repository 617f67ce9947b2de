import { Cause, Effect, Exit, Option, Stream } from "effect"
import { createServer } from "node:net"
import { fileURLToPath } from "node:url"
import type { ModelError } from "../../../src/domain/errors.js"
import type { ModelRequest, ModelStreamEvent } from "../../../src/domain/model.js"
import type { RetryPolicy } from "../../../src/layers/model/retry.js"

export const fixture = (provider: "anthropic" | "openai" | "openai-responses", name: string): string =>
  fileURLToPath(new URL(`../../fixtures/${provider}/${name}.json`, import.meta.url))

/** Retries fast enough for tests on the real clock. */
export const fastRetry: Partial<RetryPolicy> = { maxAttempts: 4, baseDelay: "2 millis", maxDelay: "10 millis" }

export const ask = (text: string, overrides: Partial<ModelRequest> = {}): ModelRequest => ({
  sessionId: "session-test",
  system: "You are a test.",
  messages: [{ role: "user", content: [{ _tag: "text", text }] }],
  tools: [],
  ...overrides
})

export interface Outcome {
  readonly events: ReadonlyArray<ModelStreamEvent>
  /** The error the stream failed with, if it failed. */
  readonly error: ModelError | undefined
}

/** Runs a model stream to its end, keeping what it emitted before a failure. */
export const run = (stream: Stream.Stream<ModelStreamEvent, ModelError>): Effect.Effect<Outcome> =>
  Effect.gen(function* () {
    const events: Array<ModelStreamEvent> = []
    const exit = yield* stream.pipe(
      Stream.runForEach((event) => Effect.sync(() => events.push(event))),
      Effect.exit
    )
    const error = Exit.isFailure(exit) ? Option.getOrUndefined(Cause.failureOption(exit.cause)) : undefined
    if (Exit.isFailure(exit) && error === undefined) return yield* Effect.die(Cause.squash(exit.cause))
    return { events, error }
  })

export const texts = (events: ReadonlyArray<ModelStreamEvent>): string =>
  events.flatMap((event) => (event._tag === "TextDelta" ? [event.text] : [])).join("")

/** A loopback URL where nothing listens (a port that was free a moment ago). */
export const deadUrl: Effect.Effect<string> = Effect.async<string>((resume) => {
  const server = createServer()
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = address !== null && typeof address === "object" ? address.port : 0
    server.close(() => resume(Effect.succeed(`http://127.0.0.1:${port}`)))
  })
})
