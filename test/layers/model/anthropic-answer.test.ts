import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import { makeAnswerReader } from "../../../src/layers/model/anthropic-answer.js"

/** Server-sent events as the Messages API writes them. */
const sse = (...events: ReadonlyArray<{ readonly type: string } & Record<string, unknown>>) =>
  events.map((data) => `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`).join("")

const start = { type: "message_start", message: { id: "msg_1", usage: { input_tokens: 5, output_tokens: 1 } } }
const text = (value: string) => [
  { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
  { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: value } },
  { type: "content_block_stop", index: 0 }
]
const toolUse = [
  { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "toolu_1", name: "read_file", input: {} } },
  { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '{"path":"a.txt"}' } },
  { type: "content_block_stop", index: 1 }
]
const stop = (reason: string) => [
  { type: "message_delta", delta: { stop_reason: reason }, usage: { output_tokens: 2 } },
  { type: "message_stop" }
]
const completed = (stopReason: string) => ({ _tag: "Completed", stopReason, usage: { inputTokens: 5, outputTokens: 2 } })

/**
 * A body whose chunks the test hands over one by one (`push`, `end`, `fail`), and which
 * records how many reads are waiting, so a test can see the reader wait or not.
 */
const controlledBody = () => {
  const queue: Array<IteratorResult<unknown> | { readonly error: Error }> = []
  let waiting: ((value: IteratorResult<unknown> | { readonly error: Error }) => void) | undefined
  const give = (item: IteratorResult<unknown> | { readonly error: Error }) => {
    if (waiting === undefined) return void queue.push(item)
    const resume = waiting
    waiting = undefined
    resume(item)
  }
  const body: AsyncIterable<unknown> = {
    [Symbol.asyncIterator]: () => ({
      next: async () => {
        const item = queue.shift() ?? (await new Promise<IteratorResult<unknown> | { readonly error: Error }>((resolve) => (waiting = resolve)))
        if ("error" in item) throw item.error
        return item
      }
    })
  }
  return {
    body,
    push: (text: string) => give({ done: false, value: Buffer.from(text) }),
    end: () => give({ done: true, value: undefined }),
    fail: (error: Error) => give({ error }),
    isWaiting: () => waiting !== undefined
  }
}

/** Lets the reader run until it waits for a chunk or has answered. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve))

describe("the Anthropic answer reader", () => {
  it("gives everything a chunk holds in one batch, and the end with it once the message stopped", async () => {
    const body = controlledBody()
    const reader = makeAnswerReader(body.body)
    body.push(sse(start, ...toolUse, ...stop("tool_use")))
    body.end()
    expect(await reader.next()).toEqual(
      Either.right({
        events: [{ _tag: "ToolCall", toolCallId: "toolu_1", name: "read_file", input: { path: "a.txt" } }, completed("tool_calls")],
        done: true
      })
    )
  })

  it("hands over what has arrived without waiting for the next chunk", async () => {
    const body = controlledBody()
    const reader = makeAnswerReader(body.body)
    body.push(sse(start, ...text("Hel")))
    expect(await reader.next()).toEqual(Either.right({ events: [{ _tag: "TextDelta", text: "Hel" }], done: false }))
    const second = reader.next()
    await settle()
    expect(body.isWaiting()).toBe(true)
    body.push(sse(...stop("end_turn")))
    body.end()
    expect(await second).toEqual(Either.right({ events: [completed("final")], done: true }))
  })

  it("after message_stop it waits for the body's end before giving the last events", async () => {
    const body = controlledBody()
    const reader = makeAnswerReader(body.body)
    body.push(sse(start, ...text("Done."), ...stop("end_turn")))
    let answered = false
    const batch = reader.next().then((result) => {
      answered = true
      return result
    })
    await settle()
    expect(answered).toBe(false)
    expect(body.isWaiting()).toBe(true)
    body.end()
    expect(await batch).toEqual(Either.right({ events: [{ _tag: "TextDelta", text: "Done." }, completed("final")], done: true }))
  })

  it("an error event after text in the same chunk fails the next read, after the text went out", async () => {
    const body = controlledBody()
    const reader = makeAnswerReader(body.body)
    body.push(`${sse(start, ...text("Partial"))}event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"busy"}}\n\n`)
    expect(await reader.next()).toEqual(Either.right({ events: [{ _tag: "TextDelta", text: "Partial" }], done: false }))
    const failed = await reader.next()
    expect(Either.isLeft(failed) && failed.left.error.message).toContain("busy")
  })

  it("a connection that breaks after text rejects the next read, after the text went out", async () => {
    const body = controlledBody()
    const reader = makeAnswerReader(body.body)
    body.push(sse(start, ...text("Partial"), ...stop("end_turn")))
    body.fail(new Error("socket hang up"))
    expect(await reader.next()).toEqual(
      Either.right({ events: [{ _tag: "TextDelta", text: "Partial" }, completed("final")], done: false })
    )
    await expect(reader.next()).rejects.toThrow("socket hang up")
  })

  it("a body that ends before message_stop is cut: its text goes out, then the failure", async () => {
    const body = controlledBody()
    const reader = makeAnswerReader(body.body)
    body.push(sse(start, ...text("Half")))
    body.end()
    expect(await reader.next()).toEqual(Either.right({ events: [{ _tag: "TextDelta", text: "Half" }], done: false }))
    const cut = await reader.next()
    expect(Either.isLeft(cut) && cut.left.error.code).toBe("network")
    expect(Either.isLeft(cut) && cut.left.retryable).toBe(true)
  })

  it("a failure before any event is the first read's result", async () => {
    const body = controlledBody()
    const reader = makeAnswerReader(body.body)
    body.push(`${sse(start)}event: content_block_start\ndata: {not json\n\n`)
    const failed = await reader.next()
    expect(Either.isLeft(failed) && failed.left.error.code).toBe("invalid_response")
  })
})
