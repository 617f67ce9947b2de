import { FetchHttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted, Schema } from "effect"
import { spawn } from "node:child_process"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import { makeConversation } from "../../../src/core/conversation.js"
import type { ModelGatewayShape } from "../../../src/services/ModelGateway.js"
import * as Anthropic from "../../../src/layers/model/anthropic.js"
import * as OpenAI from "../../../src/layers/model/openai-compatible.js"
import type { FixtureInput } from "../../support/replay-fixture.js"
import { parseFixture } from "../../support/replay-fixture.js"
import { start } from "../../support/replay-server.js"
import { makeEventLog } from "./event-log.js"
import { ask, fastRetry, fixture, run, texts } from "./helpers.js"

const chainFixture = (format: "anthropic" | "openai", steps: number): FixtureInput => ({
  format,
  chain: { steps, tool: "read_file", inputs: [{ path: "a.md" }, { path: "b.md" }], input: { path: "other.md" }, finalText: "All read." }
})

/** Plays a whole tool chain: answers every tool call, as the engine would, until a final answer. */
const playChain = (model: ModelGatewayShape) =>
  Effect.gen(function* () {
    const log = makeEventLog()
    log.userMessage("Read the files")
    const calls: Array<unknown> = []
    for (let step = 0; step < 10; step++) {
      const builder = makeConversation()
      for (const event of log.events) builder.apply(event)
      const outcome = yield* run(model.stream({ ...ask(""), messages: builder.snapshot() }))
      if (outcome.error !== undefined) return yield* Effect.fail(outcome.error)
      for (const event of outcome.events) log.model(event)
      const toolCalls = outcome.events.flatMap((event) => (event._tag === "ToolCall" ? [event] : []))
      if (toolCalls.length === 0) return { calls, answer: texts(outcome.events) }
      for (const call of toolCalls) {
        calls.push(call.input)
        log.toolCompleted(call.toolCallId, `contents of ${JSON.stringify(call.input)}`)
      }
    }
    return yield* Effect.dieMessage("the chain did not end")
  })

describe("replay server", () => {
  it.scopedLive("serves an Anthropic tool chain, each step only after the previous tool result came back", () =>
    Effect.gen(function* () {
      const server = yield* start(yield* parseFixture(chainFixture("anthropic", 3), "chain"))
      const model = yield* Anthropic.make({ apiKey: Redacted.make("k"), baseUrl: server.url, model: "claude-sonnet-5-5", retry: fastRetry })
      const result = yield* playChain(model)
      expect(result).toEqual({ calls: [{ path: "a.md" }, { path: "b.md" }, { path: "other.md" }], answer: "All read." })
      const summary = yield* server.summary
      expect(summary.served).toBe(4)
      expect(summary.toolResultsSeen).toBe(3)
      expect(summary.requests.map((request) => request.toolResultIds.length)).toEqual([0, 1, 2, 3])
      // Timing for benchmarks: each request closes after its body was read, and before the next arrives.
      yield* server.awaitClosed(3)
      const timings = (yield* server.summary).requests.map((request) => request.timing)
      timings.forEach((timing, i) => {
        expect(timing.bodyReadAt).toBeGreaterThanOrEqual(timing.receivedAt)
        expect(timing.writtenAt.length).toBeGreaterThan(0)
        expect(timing.writtenAt[0]).toBeGreaterThanOrEqual(timing.bodyReadAt)
        expect(timing.closedAt).toBeGreaterThanOrEqual(timing.writtenAt.at(-1) ?? Infinity)
        const next = timings[i + 1]
        if (next !== undefined) expect(next.receivedAt).toBeGreaterThanOrEqual(timing.closedAt ?? Infinity)
      })
    }))

  it.scopedLive("serves an OpenAI tool chain the same way", () =>
    Effect.gen(function* () {
      const server = yield* start(yield* parseFixture(chainFixture("openai", 2), "chain"))
      const model = yield* OpenAI.make({ baseUrl: `${server.url}/v1`, model: "gpt-4.1", retry: fastRetry }).pipe(
        Effect.provide(FetchHttpClient.layer)
      )
      const result = yield* playChain(model)
      expect(result.answer).toBe("All read.")
      expect((yield* server.summary).toolResultsSeen).toBe(2)
    }))

  it.scopedLive("refuses a request that lacks the required tool result, without consuming the response", () =>
    Effect.gen(function* () {
      const server = yield* start(fixture("anthropic", "tool-round-trip"))
      const model = yield* Anthropic.make({ apiKey: Redacted.make("k"), baseUrl: server.url, model: "claude-sonnet-5-5", retry: fastRetry })
      yield* run(model.stream(ask("first")))
      const refused = yield* run(model.stream(ask("second, without the tool result")))
      expect(refused.error?.code).toBe("bad_request")
      expect(refused.error?.message).toContain("expected tool results for toolu_01RoundTrip")
      const summary = yield* server.summary
      expect(summary.served).toBe(1)
      expect(summary.requests[1]?.response).toBeUndefined()
    }))

  it.scopedLive("reports its requests at GET /__requests and 404s other paths", () =>
    Effect.gen(function* () {
      const server = yield* start(fixture("openai", "plain-text"))
      const wrong = yield* Effect.promise(() => fetch(`${server.url}/v1/messages`, { method: "POST", body: "{}" }))
      expect(wrong.status).toBe(404)
      const report = yield* Effect.promise(() => fetch(`${server.url}/__requests`).then((response) => response.json()))
      expect(report).toMatchObject({ served: 0, toolResultsSeen: 0, requests: [{ index: 0, method: "POST", path: "/v1/messages" }] })
    }))

  it.scopedLive("runs as a separate process: prints its URL as JSON and serves until killed", () =>
    Effect.gen(function* () {
      const main = fileURLToPath(new URL("../../support/replay-server-main.ts", import.meta.url))
      const tsx = fileURLToPath(new URL("../../../node_modules/.bin/tsx", import.meta.url))
      const child = yield* Effect.acquireRelease(
        Effect.sync(() => spawn(tsx, [main, "--fixture", fixture("anthropic", "plain-text"), "--port", "0"], { stdio: ["ignore", "pipe", "inherit"] })),
        (child) =>
          Effect.async<void>((resume) => {
            if (child.exitCode !== null) return resume(Effect.void)
            child.once("exit", () => resume(Effect.void))
            child.kill("SIGTERM")
          })
      )
      const firstLine = yield* Effect.async<string, Error>((resume) => {
        const lines = createInterface({ input: child.stdout })
        lines.once("line", (line) => resume(Effect.succeed(line)))
        child.once("exit", (code) => resume(Effect.fail(new Error(`replay-server-main exited with ${code}`))))
      }).pipe(Effect.timeout("20 seconds"))
      const { url } = Schema.decodeUnknownSync(Schema.parseJson(Schema.Struct({ url: Schema.String })))(firstLine)
      const model = yield* Anthropic.make({ apiKey: Redacted.make("k"), baseUrl: url, model: "claude-sonnet-5-5", retry: fastRetry })
      const outcome = yield* run(model.stream(ask("Hi")))
      expect(texts(outcome.events)).toBe("Hello, world!")
      const report = yield* Effect.promise(() => fetch(`${url}/__requests`).then((response) => response.json()))
      expect(report).toMatchObject({ served: 1, requests: [{ path: "/v1/messages" }] })
    }))
})
