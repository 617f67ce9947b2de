import { afterAll, describe, expect, it } from "@effect/vitest"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable"
import { makeWorkspace, startAcp, waitFor } from "./acp-harness.js"
import { makeTemp } from "../support/temp-dirs.js"

const temp = makeTemp()
afterAll(() => temp.cleanup())

/** Prints a line, then waits for the test to create `go` in the workspace, then prints another. */
const command = "printf 'compiling step one\\n'; while [ ! -e go ]; do sleep 0.05; done; printf 'finished\\n'"

const textOf = (update: SessionUpdate | undefined): string =>
  update?.sessionUpdate === "tool_call_update"
    ? (update.content ?? []).map((c) => (c.type === "content" && c.content.type === "text" ? c.content.text : "")).join("")
    : ""

describe("custom-agent acp: a running command", () => {
  it("sends its output so far as the call's content while it runs (in_progress), then the result", { timeout: 60_000 }, async () => {
    const workspace = makeWorkspace(temp)
    const script = workspace.script("live", { responses: [{ chunks: [{ toolCall: { name: "shell", input: { command }, id: "call_sh" } }] }, "Built."] })
    const acp = await startAcp(workspace, { script, behaviour: { onPermission: () => ({ outcome: { outcome: "selected", optionId: "allow_once" } }) } })
    try {
      const sessionId = await acp.newSession(workspace.cwd)
      const answered = acp.prompt(sessionId, "build it")
      const live = () => acp.updatesOf(sessionId).filter((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "call_sh" && textOf(u).includes("compiling step one"))
      await waitFor(acp, () => live().length > 0, "the running command's output")
      expect(live()[0]).toMatchObject({ status: "in_progress" })
      // The command still waits: no result yet.
      expect(acp.updatesOf(sessionId).some((u) => u.sessionUpdate === "tool_call_update" && (u.status === "completed" || u.status === "failed"))).toBe(false)
      writeFileSync(join(workspace.cwd, "go"), "")
      expect((await answered).stopReason).toBe("end_turn")
      const calls = acp.updatesOf(sessionId).filter((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "call_sh")
      expect(calls.at(-1)).toMatchObject({ status: "completed" })
      expect(textOf(calls.at(-1))).toBe("compiling step one\nfinished\n\n[exit code 0]")
    } finally {
      expect(await acp.stop()).toBe(0)
    }
  })
})
