import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Option, Schedule, Stream } from "effect"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { AgentEvent } from "../../src/domain/events.js"
import { AgentClient, clientLayer } from "../../src/rpc/client.js"
import { startServer, stop } from "../support/cli.js"
import { exportEvents, makeWorkspace, startAcp, type Workspace } from "./acp-harness.js"
import { makeTemp } from "../support/temp-dirs.js"

const temp = makeTemp()
afterAll(() => temp.cleanup())

const script = {
  responses: [
    { chunks: [{ thinking: "Read it first." }, { text: "Reading the notes." }, { toolCall: { name: "read_file", input: { path: "notes.txt" }, id: "call_read" } }] },
    { chunks: [{ text: "Now the edit." }, { toolCall: { name: "edit_file", input: { path: "notes.txt", old_string: "old", new_string: "new" }, id: "call_edit" } }] },
    "Done: the notes are updated."
  ]
}
const prompt = "Update the notes."

/** What is left of a log once ids, times, the client's name and durations are set aside. */
const normalize = (events: ReadonlyArray<AgentEvent>) => {
  const turns = new Map<string, string>()
  return events.map((event) => {
    const turn = event.turnId === undefined ? undefined : (turns.get(event.turnId) ?? `turn-${turns.size + 1}`)
    if (event.turnId !== undefined && turn !== undefined) turns.set(event.turnId, turn)
    const payload =
      event.type === "session.created" || (event.type === "permission.resolved" && event.payload.client !== undefined)
        ? { ...event.payload, client: "<client>" }
        : event.type === "tool.completed"
          ? { ...event.payload, durationMs: 0 }
          : event.payload
    return { type: event.type, sequence: event.sequence, turn, payload }
  })
}

const driveAcp = async (workspace: Workspace) => {
  const acp = await startAcp(workspace, {
    script: workspace.script("acp-equivalence", script),
    behaviour: { onPermission: () => ({ outcome: { outcome: "selected", optionId: "allow_once" } }) }
  })
  try {
    const sessionId = await acp.newSession(workspace.cwd)
    expect((await acp.prompt(sessionId, prompt)).stopReason).toBe("end_turn")
    return sessionId
  } finally {
    await acp.stop()
  }
}

/** The same conversation through the RPC API of `custom-agent serve`, answering the question as a user would. */
const driveRpc = async (workspace: Workspace) => {
  const server = await startServer(["--data-dir", workspace.dataDir, "--script", workspace.script("rpc-equivalence", script)], {
    env: { CUSTOM_AGENT_CONFIG_HOME: workspace.configDir }
  })
  try {
    const drive = Effect.gen(function* () {
      const client = yield* AgentClient
      const { sessionId } = yield* client.CreateSession({ cwd: workspace.cwd })
      const answer = (toolCallId: string) =>
        client
          .RespondPermission({ sessionId, toolCallId, answer: { decision: "allow", scope: "once" } })
          .pipe(Effect.retry({ times: 50, schedule: Schedule.spaced("20 millis") }))
      const watcher = yield* client.Subscribe({ sessionId }).pipe(
        Stream.filterMap((frame) => (frame._tag === "Event" ? Option.some(frame.event) : Option.none())),
        Stream.tap((event) => (event.type === "permission.requested" ? answer(event.payload.toolCallId) : Effect.void)),
        Stream.takeUntil((event) => event.type === "turn.completed"),
        Stream.runDrain,
        Effect.fork
      )
      yield* client.Prompt({ sessionId, content: prompt })
      yield* Fiber.join(watcher)
      return sessionId
    })
    return await Effect.runPromise(drive.pipe(Effect.provide(clientLayer({ url: server.url, token: server.token }))))
  } finally {
    await stop(server.child)
  }
}

describe("custom-agent acp: the same log as the RPC API", () => {
  it("stores the same events for one scripted session driven over ACP and over RPC, apart from ids, times and the client", { timeout: 90_000 }, async () => {
    const overAcp = makeWorkspace(temp)
    const notes = join(overAcp.cwd, "notes.txt")
    writeFileSync(notes, "old notes\n")
    const acpSession = await driveAcp(overAcp)
    expect(readFileSync(notes, "utf8")).toBe("new notes\n")

    // Same workspace (tool outputs and token estimates depend on it), its own data directory.
    const overRpc: Workspace = { ...overAcp, dataDir: join(overAcp.dataDir, "..", "data-rpc") }
    mkdirSync(overRpc.dataDir)
    writeFileSync(notes, "old notes\n")
    const rpcSession = await driveRpc(overRpc)
    expect(readFileSync(notes, "utf8")).toBe("new notes\n")

    const viaAcp = await exportEvents(overAcp, acpSession)
    const viaRpc = await exportEvents(overRpc, rpcSession)
    expect(viaAcp[0]).toMatchObject({ payload: { client: "acp" } })
    expect(viaRpc[0]).toMatchObject({ payload: { client: "rpc" } })
    expect(viaAcp.map((e) => e.type)).toContain("permission.requested")
    expect(normalize(viaAcp)).toEqual(normalize(viaRpc))
  })
})
