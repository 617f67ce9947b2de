import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Stream } from "effect"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { type AgentConfig, agentLayer } from "../../src/app/agent.js"
import type { SandboxConfig } from "../../src/app/tools.js"
import { SessionEngine } from "../../src/core/SessionEngine.js"
import * as PolicyApprovals from "../../src/layers/approvals/policy.js"
import { WRITE_NOTE } from "../../src/layers/sandbox/notes.js"
import { eventsOf } from "../support/events.js"
import { bwrapInstalled, type Dirs, makeDirs, sandboxSuite } from "../support/sandbox.js"

/**
 * The agent as the CLI builds it (`run --approve allow-all`, with `--sandbox ...`): one shell
 * call that writes inside the workspace and then outside it.
 */
const runShell = (dirs: Dirs, sandbox: SandboxConfig | undefined) =>
  Effect.gen(function* () {
    const command = `echo in > inside.txt; echo out > ${dirs.outside}/outside.txt`
    const scriptPath = join(dirs.outside, "script.json")
    writeFileSync(scriptPath, JSON.stringify({ responses: [{ chunks: [{ toolCall: { id: "c1", name: "shell", input: { command } } }] }, "done"] }))
    const config: AgentConfig = {
      dataDir: dirs.dataDir,
      configDir: dirs.configDir,
      store: "jsonl",
      model: { spec: "scripted", scriptPath },
      approvals: PolicyApprovals.layer("allow-all"),
      ...(sandbox === undefined ? {} : { sandbox })
    }
    return yield* Effect.gen(function* () {
      const engine = yield* SessionEngine
      const { header } = yield* engine.createSession({ cwd: dirs.workspace, client: "test" })
      return Chunk.toArray(yield* Stream.runCollect(engine.runTurn({ sessionId: header.sessionId, content: "go", permissionMode: "bypass" })))
    }).pipe(Effect.provide(agentLayer(config)))
  })

describe("the sandbox as the CLI wires it", () => {
  it.scopedLive("--sandbox off: the command runs unsandboxed, and tool.started records none/off", () =>
    Effect.gen(function* () {
      const dirs = yield* makeDirs()
      const events = yield* runShell(dirs, { mode: "off", network: false })
      expect(eventsOf(events, "tool.started").map((e) => e.payload)).toEqual([{ toolCallId: "c1", name: "shell", sandbox: { _tag: "none", reason: "off" } }])
      expect(readFileSync(join(dirs.outside, "outside.txt"), "utf8")).toBe("out\n")
    }))

  it.scopedLive.skipIf(!bwrapInstalled)(sandboxSuite("by default (auto), the command runs in bubblewrap, and tool.started says so"), () =>
    Effect.gen(function* () {
      const dirs = yield* makeDirs()
      const events = yield* runShell(dirs, undefined)
      expect(eventsOf(events, "tool.started").map((e) => e.payload)).toEqual([{ toolCallId: "c1", name: "shell", sandbox: { _tag: "bwrap", network: false } }])
      expect(readFileSync(join(dirs.workspace, "inside.txt"), "utf8")).toBe("in\n")
      expect(existsSync(join(dirs.outside, "outside.txt"))).toBe(false)
      expect(eventsOf(events, "tool.completed")[0]?.payload.output).toContain(WRITE_NOTE)
    }))
})
