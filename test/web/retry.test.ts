import { HttpClientError, HttpClientRequest, HttpClientResponse } from "@effect/platform"
import { RpcClientError } from "@effect/rpc"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, TestClock } from "effect"
import { describe as describeError, isRefused, isUnreachable } from "../../web/src/api.js"
import { makeRetrySignal } from "../../web/src/retry.js"

const request = HttpClientRequest.post("http://127.0.0.1:7420/rpc")
const transport = new RpcClientError.RpcClientError({
  reason: "Protocol",
  message: "Transport error",
  cause: new HttpClientError.RequestError({ request, reason: "Transport" })
})
const status = (code: number) =>
  new RpcClientError.RpcClientError({
    reason: "Protocol",
    message: "refused",
    cause: new HttpClientError.ResponseError({
      request,
      response: HttpClientResponse.fromWeb(request, new Response("", { status: code })),
      reason: "StatusCode",
      description: `${code}: no`
    })
  })

describe("when the server does not answer", () => {
  it("says so in words, with no internal tag; a refused token and other answers are told apart", () => {
    expect(isUnreachable(transport)).toBe(true)
    expect(describeError(transport)).toBe("The server is not answering: it may have stopped or be restarting.")
    expect(describeError(transport)).not.toContain("Transport")
    expect(isUnreachable(status(503))).toBe(true)
    expect(isUnreachable(status(401))).toBe(false)
    expect(isRefused(status(401))).toBe(true)
    expect(isUnreachable(status(413))).toBe(false)
    expect(describeError(status(413))).toBe("413: no")
    expect(isUnreachable(new Error("boom"))).toBe(false)
  })

  it.effect("Retry now ends every pause under way at once; a pause nobody cuts short lasts its time", () =>
    Effect.gen(function* () {
      const retry = makeRetrySignal()
      const first = yield* Effect.fork(retry.pause("5 seconds"))
      const second = yield* Effect.fork(retry.pause("1 minute"))
      yield* TestClock.adjust("1 second")
      expect(first.unsafePoll()).toBeNull()
      retry.now()
      yield* Fiber.join(first)
      yield* Fiber.join(second)
      const third = yield* Effect.fork(retry.pause("2 seconds"))
      yield* TestClock.adjust("1 second")
      expect(third.unsafePoll()).toBeNull()
      yield* TestClock.adjust("1 second")
      yield* Fiber.join(third)
    }))
})
