import { methods } from "@agentclientprotocol/sdk"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { SessionEngine } from "../../src/core/SessionEngine.js"
import type { PermissionMode } from "../../src/domain/permissions.js"
import { eventsOf } from "../support/events.js"
import { makeTemp } from "../support/temp-dirs.js"
import { exportEvents, makeWorkspace, startAcp } from "../acp/acp-harness.js"
import { allowPath, contains, created, denied, deniedNoControl, editFile, npmTest, PWNED, pwned, type SecurityCase, sh, writeFile } from "./cases.js"
import { removeFixtures } from "./fixture.js"
import { rememberAnswer } from "./remember.js"
import { callId, prepareFixture, runTurn, withAgent } from "./run-case.js"
import { securityCases } from "./suite.js"

/** The session's mode, recorded as the event clients and a reload read it from. */
const setMode = (sessionId: string, mode: PermissionMode) =>
  Effect.flatMap(SessionEngine, (engine) => engine.record(sessionId, { type: "session.mode_changed", payload: { mode, by: "security-suite" } }))

const cases: ReadonlyArray<SecurityCase> = [
  // plan: read-only, before any rule or remembered answer.
  { name: "plan: write_file under an allow rule", mode: "plan", rules: [allowPath("write_file", "**")], calls: [writeFile("a.txt")], expect: denied(contains("a.txt", "pwned"), ["mode"]) },
  { name: "plan: edit_file under an allow rule", mode: "plan", rules: [allowPath("edit_file", "**")], calls: [editFile("a.txt", "alpha", "pwned")], expect: denied(contains("a.txt", "pwned"), ["mode"]) },
  { name: "plan: an allowed shell command", mode: "plan", rules: [npmTest], calls: [sh("npm test")], expect: deniedNoControl(["mode"]) },
  { name: "plan: a command under --approve allow-all", mode: "plan", approve: "allow-all", calls: [sh(`touch ${PWNED}`)], expect: denied(pwned, ["mode"]) },
  {
    name: "plan: a remembered always for the same write",
    mode: "plan",
    before: (fx, sessionId) => rememberAnswer(fx, sessionId, writeFile("a.txt", "x\n"), "allow", "always"),
    calls: [writeFile("a.txt")],
    expect: denied(contains("a.txt", "pwned"), ["mode"])
  },
  {
    name: "plan set on the session (session.mode_changed) holds for a turn that names no mode",
    rules: [allowPath("write_file", "**")],
    before: (_fx, sessionId) => setMode(sessionId, "plan"),
    calls: [writeFile("a.txt")],
    expect: denied(contains("a.txt", "pwned"), ["mode"])
  },
  // accept-edits: writes inside the workspace only; commands still ask.
  { name: "accept-edits: write_file outside by an absolute path", mode: "accept-edits", calls: [writeFile(PWNED)], expect: denied(pwned) },
  { name: "accept-edits: write_file outside by ../", mode: "accept-edits", calls: [writeFile("../outside/pwned")], expect: denied(pwned) },
  { name: "accept-edits: write_file into ~", mode: "accept-edits", calls: [writeFile("{HOME}/.bashrc", "pwned\n")], expect: denied(contains("{HOME}/.bashrc", "pwned")) },
  { name: "accept-edits: a shell command still asks", mode: "accept-edits", calls: [sh("touch made.txt")], expect: denied(created("made.txt")) },
  // default: a write with no rule asks.
  { name: "default: write_file with no rule asks", calls: [writeFile("a.txt")], expect: denied(contains("a.txt", "pwned"), ["policy"]) }
]

securityCases("modes", cases)

describe("modes survive a reload", () => {
  const temp = makeTemp()
  afterAll(() => {
    temp.cleanup()
    removeFixtures()
  })

  it.live("plan recorded in one engine holds in a new one on the same data dir", () =>
    Effect.gen(function* () {
      const c: SecurityCase = { name: "reload", rules: [allowPath("write_file", "**")], calls: [writeFile("a.txt")], expect: denied() }
      const fx = prepareFixture(c)
      const sessionId = yield* withAgent(
        fx,
        c,
        Effect.gen(function* () {
          const engine = yield* SessionEngine
          const { header } = yield* engine.createSession({ cwd: fx.ws, client: "security-suite" })
          yield* setMode(header.sessionId, "plan")
          return header.sessionId
        })
      )
      // A new layer is a new engine with nothing in memory: what it knows comes from the store.
      const events = yield* withAgent(fx, c, runTurn(c, sessionId))
      const answers = eventsOf(events, "permission.resolved").map((e) => e.payload)
      expect(answers).toMatchObject([{ toolCallId: callId(0), decision: "deny", by: "mode" }])
      expect(eventsOf(events, "tool.started")).toEqual([])
      expect(readFileSync(join(fx.ws, "a.txt"), "utf8")).toBe("alpha\n")
    })
  )

  it("ACP: set_mode plan, then session/load in a new process: still plan, the write is refused, the change is in the log", { timeout: 90_000 }, async () => {
    const workspace = makeWorkspace(temp)
    writeFileSync(join(workspace.configDir, "permissions.json"), JSON.stringify({ rules: [allowPath("write_file", "**")] }))
    const first = await startAcp(workspace)
    let sessionId = ""
    try {
      sessionId = await first.newSession(workspace.cwd)
      await first.connection.agent.request(methods.agent.session.setMode, { sessionId, modeId: "plan" })
    } finally {
      await first.stop()
    }
    const script = workspace.script("write", { responses: [{ chunks: [{ toolCall: { name: "write_file", input: { path: "made.txt", content: "pwned\n" }, id: "call_write" } }] }, "done"] })
    const later = await startAcp(workspace, { script })
    try {
      const loaded = await later.connection.agent.request(methods.agent.session.load, { sessionId, cwd: workspace.cwd, mcpServers: [] })
      expect(loaded?.modes?.currentModeId).toBe("plan")
      expect((await later.prompt(sessionId, "write it")).stopReason).toBe("end_turn")
    } finally {
      await later.stop()
    }
    expect(existsSync(join(workspace.cwd, "made.txt"))).toBe(false)
    const events = await exportEvents(workspace, sessionId)
    expect(eventsOf(events, "session.mode_changed").map((e) => e.payload.mode)).toEqual(["plan"])
    expect(eventsOf(events, "permission.resolved").map((e) => [e.payload.decision, e.payload.by])).toEqual([["deny", "mode"]])
    expect(eventsOf(events, "tool.started")).toEqual([])
  })
})
