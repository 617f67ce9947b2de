import { afterAll, describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Stream } from "effect"
import { existsSync, mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { AgentHost } from "../../src/host/AgentHost.js"
import * as AgentFolders from "../../src/layers/agents/folders.js"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import { localTools } from "../../src/layers/tools/local.js"
import { sandboxOff } from "../../src/layers/sandbox/off.js"
import { replayAll } from "../support/engine-harness.js"
import { eventsOf } from "../support/events.js"
import { hostTestLayer } from "../support/host-harness.js"
import { removeSubagentDirs, subagentWorkspace, task, toolCall } from "../support/subagent-fixture.js"

afterAll(removeSubagentDirs)

const helper = { name: "helper", description: "Writes files", body: "You write what you are asked to." }
const script = {
  responses: [{ chunks: [task("helper", "Write w.txt", "call_task")] }, "The helper wrote it."],
  agents: { helper: { responses: [{ chunks: [toolCall("write_file", { path: "w.txt", content: "hi" }, "call_w")] }, "Written."] } }
}

describe("a subagent's permission question reaches its parent's clients", () => {
  it.effect("the question shows on the parent's stream and pending list, labelled with the child's name; the parent's client answers it", () => {
    const cwd = subagentWorkspace([helper])
    return Effect.gen(function* () {
      const host = yield* AgentHost
      const { sessionId } = yield* host.createSession({ cwd, client: "test" })
      const asked = yield* Deferred.make<string>()
      const watcher = yield* host.subscribe(sessionId, 0).pipe(
        Stream.tap((f) => (f._tag === "Event" && f.event.type === "permission.requested" ? Deferred.succeed(asked, f.event.payload.toolCallId) : Effect.void)),
        Stream.takeUntil((f) => f._tag === "Event" && f.event.type === "turn.completed"),
        Stream.runDrain,
        Effect.fork
      )
      yield* host.prompt({ sessionId, content: "have w.txt written" })
      const toolCallId = yield* Deferred.await(asked)
      const pending = (yield* host.getSession(sessionId)).pendingPermissions
      expect(pending).toHaveLength(1)
      expect(pending[0]).toMatchObject({ toolCallId, tool: "write_file", summary: expect.stringMatching(/^\[subagent helper\] /) })
      expect(existsSync(join(cwd, "w.txt"))).toBe(false)
      yield* host.respondPermission(sessionId, toolCallId, { decision: "allow", scope: "once" })
      yield* Fiber.join(watcher)
      expect(readFileSync(join(cwd, "w.txt"), "utf8")).toBe("hi")
      const parent = yield* replayAll(sessionId)
      const childId = eventsOf(parent, "subagent.started")[0]?.payload.childSessionId ?? ""
      expect(toolCallId).toBe(`${childId}/call_w`)
      expect(eventsOf(yield* replayAll(childId), "permission.resolved")[0]?.payload).toMatchObject({ decision: "allow", by: "user" })
      expect(eventsOf(parent, "tool.completed").find((e) => e.payload.toolCallId === "call_task")?.payload.output).toBe("Written.")
    }).pipe(
      Effect.provide(
        hostTestLayer(MemoryStore.layer, script, {
          tools: localTools(sandboxOff),
          agents: AgentFolders.layer({ configDir: mkdtempSync(join(tmpdir(), "subagent-host-config-")) })
        })
      )
    )
  })
})
