import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { PassThrough } from "node:stream"
import * as Interactive from "../../../src/layers/approvals/interactive.js"
import type { ApprovalRequest } from "../../../src/services/Approvals.js"

const request = (risk: ApprovalRequest["risk"]): ApprovalRequest => ({
  sessionId: "ses_1",
  turnId: "turn_1",
  toolCallId: "call_1",
  tool: risk === "write" ? "write_file" : "shell",
  risk,
  summary: "a question",
  input: {}
})

const answer = (risk: ApprovalRequest["risk"], lines: ReadonlyArray<string>) => {
  const input = new PassThrough()
  const output = new PassThrough()
  let shown = ""
  output.on("data", (chunk: Buffer) => {
    shown += chunk.toString()
  })
  const approvals = Interactive.make({ input, output, color: false })
  return Effect.gen(function* () {
    const fiber = yield* Effect.fork(approvals.ask(request(risk)))
    for (const line of lines) {
      yield* Effect.sleep("5 millis")
      input.write(`${line}\n`)
    }
    const result = yield* fiber.await
    return { result, shown: () => shown }
  })
}

describe("terminal approvals", () => {
  it.live("a lasting answer about a write asks which paths it covers", () =>
    Effect.gen(function* () {
      const { result, shown } = yield* answer("write", ["a", "src/** docs/*.md"])
      expect(result).toMatchObject({ _tag: "Success", value: { decision: "allow", scope: "always", by: "user", paths: ["src/**", "docs/*.md"] } })
      expect(shown()).toContain("remember for which paths?")
      const plain = yield* answer("write", ["s", ""])
      expect(plain.result).toMatchObject({ _tag: "Success", value: { decision: "allow", scope: "session" } })
      expect(plain.result._tag === "Success" && plain.result.value.paths).toBe(undefined)
    })
  )

  it.live("other answers settle at once; an unknown key asks again", () =>
    Effect.gen(function* () {
      const { result, shown } = yield* answer("execute", ["x", "s"])
      expect(result).toMatchObject({ _tag: "Success", value: { decision: "allow", scope: "session" } })
      expect(shown()).not.toContain("remember for which paths?")
      expect(shown().match(/\[y\] allow once/g)).toHaveLength(2)
    })
  )
})
