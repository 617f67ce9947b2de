import { describe, expect, it } from "@effect/vitest"
import { Chunk, Data, Effect, Stream } from "effect"
import type { AgentEvent } from "../../src/domain/events.js"
import { withSubagents } from "../../src/cli/export-tree.js"

class Missing extends Data.TaggedError("SessionNotFound")<{ readonly sessionId: string }> {}

const at = "2026-12-01T10:00:00.000Z"

const created = (sessionId: string, parent?: { readonly sessionId: string; readonly toolCallId: string }): AgentEvent => ({
  type: "session.created",
  schemaVersion: 1,
  id: `evt_${sessionId}_1`,
  sessionId,
  sequence: 1,
  timestamp: at,
  payload: { cwd: "/w", client: "test", ...(parent === undefined ? {} : { parent: { ...parent, turnId: "turn_1", agent: "reviewer", depth: 1 } }) }
})

const started = (sessionId: string, sequence: number, toolCallId: string, childSessionId: string): AgentEvent => ({
  type: "subagent.started",
  schemaVersion: 1,
  id: `evt_${sessionId}_${sequence}`,
  sessionId,
  turnId: "turn_1",
  sequence,
  timestamp: at,
  payload: { toolCallId, agent: "reviewer", childSessionId, prompt: "review it", depth: 1 }
})

/** A store of logs: the parent names a confirmed child (with its own child), a child whose log denies it, one gone, and the first again. */
const logs: Record<string, ReadonlyArray<AgentEvent>> = {
  ses_parent: [
    created("ses_parent"),
    started("ses_parent", 2, "call_a", "ses_child"),
    started("ses_parent", 3, "call_b", "ses_stranger"),
    started("ses_parent", 4, "call_c", "ses_gone"),
    started("ses_parent", 5, "call_a", "ses_child")
  ],
  ses_child: [created("ses_child", { sessionId: "ses_parent", toolCallId: "call_a" }), started("ses_child", 2, "call_g", "ses_grandchild")],
  ses_grandchild: [created("ses_grandchild", { sessionId: "ses_child", toolCallId: "call_g" })],
  // Another session's log that the parent's claims: its own first event names no such call.
  ses_stranger: [created("ses_stranger")]
}

const exportOne = (sessionId: string): Stream.Stream<AgentEvent, Missing> => {
  const log = logs[sessionId]
  return log === undefined ? Stream.fail(new Missing({ sessionId })) : Stream.fromIterable(log)
}

const exported = (subagents: boolean) =>
  Effect.gen(function* () {
    const leftOut: Array<string> = []
    const tree = withSubagents(
      { exportOne, subagents, isMissing: (error) => error._tag === "SessionNotFound", leftOut: (child, parent) => Effect.sync(() => leftOut.push(`${child} of ${parent}`)) },
      "ses_parent"
    )
    const events = Chunk.toReadonlyArray(yield* Stream.runCollect(tree))
    return { sessions: [...new Set(events.map((event) => event.sessionId))], events, leftOut }
  })

describe("an export with its subagents' sessions (sessions export, the interactive /export)", () => {
  it.effect("the session, then the children both logs agree it started, then theirs, each once; a child whose log denies it or that is gone is left out", () =>
    Effect.gen(function* () {
      const { sessions, events, leftOut } = yield* exported(true)
      expect(sessions).toEqual(["ses_parent", "ses_child", "ses_grandchild"])
      // Each session's lines together, in log order.
      expect(events.map((event) => `${event.sessionId}#${event.sequence}`)).toEqual([
        "ses_parent#1",
        "ses_parent#2",
        "ses_parent#3",
        "ses_parent#4",
        "ses_parent#5",
        "ses_child#1",
        "ses_child#2",
        "ses_grandchild#1"
      ])
      expect(leftOut).toEqual(["ses_stranger of ses_parent"])
    }))

  it.effect("without subagents, only the session's own log", () =>
    Effect.gen(function* () {
      const { sessions, leftOut } = yield* exported(false)
      expect(sessions).toEqual(["ses_parent"])
      expect(leftOut).toEqual([])
    }))

  it.effect("a failure other than a missing session fails the export", () =>
    Effect.gen(function* () {
      const broken = withSubagents(
        {
          exportOne: (sessionId: string) => (sessionId === "ses_child" ? Stream.fail(new Missing({ sessionId })) : exportOne(sessionId)),
          subagents: true,
          isMissing: () => false,
          leftOut: () => Effect.void
        },
        "ses_parent"
      )
      const error = yield* Effect.flip(Stream.runDrain(broken))
      expect(error).toMatchObject({ _tag: "SessionNotFound", sessionId: "ses_child" })
    }))
})
