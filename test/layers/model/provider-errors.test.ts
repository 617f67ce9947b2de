import { describe, expect, it } from "@effect/vitest"
import { Duration } from "effect"
import { classifyProblem, parseRetryAfter } from "../../../src/layers/model/provider-errors.js"

const label = { name: "Provider", keyVariable: "PROVIDER_KEY" }
const classify = (problem: Parameters<typeof classifyProblem>[1]) => {
  const failure = classifyProblem(label, problem)
  return { code: failure.error.code, retryable: failure.retryable, status: failure.error.status }
}

describe("provider error classification", () => {
  it("maps HTTP statuses", () => {
    expect(classify({ status: 401, detail: "bad key" })).toEqual({ code: "auth", retryable: false, status: 401 })
    expect(classify({ status: 403, detail: "forbidden" })).toEqual({ code: "auth", retryable: false, status: 403 })
    expect(classify({ status: 429, detail: "slow down" })).toEqual({ code: "rate_limited", retryable: true, status: 429 })
    expect(classify({ status: 529, detail: "Overloaded" })).toEqual({ code: "overloaded", retryable: true, status: 529 })
    expect(classify({ status: 500, detail: "oops" })).toEqual({ code: "provider_error", retryable: true, status: 500 })
    expect(classify({ status: 404, detail: "no such model" })).toEqual({ code: "bad_request", retryable: false, status: 404 })
    expect(classify({ status: 400, detail: "prompt is too long: 201000 tokens > 200000 maximum" })).toEqual({
      code: "context_overflow",
      retryable: false,
      status: 400
    })
    expect(classify({ status: 400, detail: "the request exceeds the available context size" }).code).toBe("context_overflow")
    expect(classify({ status: 400, detail: "messages: field required" }).code).toBe("bad_request")
  })

  it("maps error types of error events inside a stream (no status)", () => {
    expect(classify({ errorType: "overloaded_error", detail: "Overloaded" })).toEqual({ code: "overloaded", retryable: true, status: undefined })
    expect(classify({ errorType: "rate_limit_error", detail: "x" }).code).toBe("rate_limited")
    expect(classify({ errorType: "api_error", detail: "x" })).toEqual({ code: "provider_error", retryable: true, status: undefined })
    expect(classify({ errorType: "authentication_error", detail: "x" }).code).toBe("auth")
    expect(classify({ errorType: "context_length_exceeded", detail: "x" }).code).toBe("context_overflow")
    expect(classify({ errorType: "insufficient_quota", status: 429, detail: "x" })).toEqual({ code: "rate_limited", retryable: false, status: 429 })
  })

  it("names the key variable when the key is rejected", () => {
    expect(classifyProblem(label, { status: 401, detail: "invalid x-api-key" }).error.message).toContain("PROVIDER_KEY")
  })

  it("parses Retry-After as seconds or an HTTP date", () => {
    const now = Date.parse("2026-01-01T00:00:00Z")
    expect(parseRetryAfter("3", now)).toEqual(Duration.seconds(3))
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:00:10 GMT", now)).toEqual(Duration.millis(10_000))
    expect(parseRetryAfter("soon", now)).toBeUndefined()
    expect(parseRetryAfter(null, now)).toBeUndefined()
  })
})
