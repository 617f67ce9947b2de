import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { resolve } from "node:path"
import { makeConversation } from "../../src/core/conversation.js"
import { forkLog } from "../../src/domain/fork.js"
import type { AgentEvent } from "../../src/domain/events.js"
import { parseEventLines } from "../support/events.js"
import { recorder } from "../web/events.js"

const conversationOf = (events: ReadonlyArray<AgentEvent>) => {
  const conversation = makeConversation()
  for (const event of events) conversation.apply(event)
  return conversation.snapshot()
}

const fork = (source: ReadonlyArray<AgentEvent>) => {
  let n = 0
  return forkLog(source, { sessionId: "ses_fork", atSequence: source.at(-1)?.sequence ?? 0, by: "test", timestamp: "2026-01-01T00:00:00.000Z", newId: () => `evt_f${++n}` })
}

describe("a fork of a log with hooks", () => {
  it("moves a hook run's promptSequence with the prompt, so a blocked steering message stays out of the fork's conversation", () => {
    const e = recorder()
    const source = [
      e("session.created", { cwd: "/work", client: "test" }, undefined),
      e("turn.started", { promptPreview: "go" }),
      e("user.message", { content: "go", mode: "queue" }),
      e("user.message", { content: "my password", mode: "steer" }),
      e("hook.ran", { event: "UserPromptSubmit", command: "guard", source: "user", promptSequence: 4, exitCode: 2, timedOut: false, decision: "block", reason: "no", output: "", durationMs: 1 }),
      e("model.delta", { text: "ok" }),
      e("model.completed", { stopReason: "final", usage: { inputTokens: 1, outputTokens: 1 } }),
      e("turn.completed", { stopReason: "final" })
    ]
    const forked = fork(source)
    const run = forked.find((event) => event.type === "hook.ran")
    expect(run?.type === "hook.ran" ? run.payload.promptSequence : undefined).toBe(5)
    expect(forked.find((event) => event.sequence === 5)?.type).toBe("user.message")
    expect(conversationOf(forked)).toEqual(conversationOf(source))
    expect(JSON.stringify(conversationOf(forked))).not.toContain("password")
  })

  it("the golden hooks transcript forks to the same conversation", () => {
    const source = parseEventLines(readFileSync(resolve(import.meta.dirname, "../fixtures/golden/hooks/transcript.jsonl"), "utf8"))
    expect(conversationOf(fork(source))).toEqual(conversationOf(source))
  })
})
