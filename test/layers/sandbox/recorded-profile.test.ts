import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Stream } from "effect"
import { chmodSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { SessionEngine } from "../../../src/core/SessionEngine.js"
import * as MemoryStore from "../../../src/layers/event-store/memory.js"
import * as SandboxLayer from "../../../src/layers/sandbox/layer.js"
import { makeShellTool } from "../../../src/layers/tools/shell.js"
import type { SandboxShape } from "../../../src/services/Sandbox.js"
import { engineLayer } from "../../support/engine-harness.js"
import { eventsOf } from "../../support/events.js"
import { tempDir } from "../../support/mcp-fixtures.js"

/** One allowed `shell` call through the engine (its store checks every event against the catalogue); the events of the turn. */
const turnWith = (sandbox: SandboxShape, workspace: string) =>
  Effect.gen(function* () {
    const engine = yield* SessionEngine
    const { header } = yield* engine.createSession({ cwd: workspace, client: "test" })
    return Chunk.toArray(yield* Stream.runCollect(engine.runTurn({ sessionId: header.sessionId, content: "go" })))
  }).pipe(
    Effect.provide(
      engineLayer(MemoryStore.layer, { responses: [{ chunks: [{ toolCall: { id: "c1", name: "shell", input: { command: "echo ran" } } }] }, "done"] }, {
        tools: [makeShellTool(sandbox)],
        answers: [{ decision: "allow", scope: "once", by: "user" }]
      })
    )
  )

describe("tool.started records where a shell call ran", () => {
  it.scopedLive("none/unavailable when bubblewrap cannot run: the command ran unsandboxed, and the log says so", () =>
    Effect.gen(function* () {
      const home = yield* tempDir("sandbox-recorded-")
      const bwrapPath = join(home, "broken-bwrap")
      writeFileSync(bwrapPath, "#!/bin/sh\necho 'bwrap: Creating new namespace failed' >&2\nexit 1\n")
      chmodSync(bwrapPath, 0o755)
      const sandbox = yield* SandboxLayer.make({ mode: "auto", bwrapPath, configDir: join(home, "config"), dataDir: join(home, "data") })
      const events = yield* turnWith(sandbox, home)
      expect(eventsOf(events, "tool.started").map((e) => e.payload)).toEqual([{ toolCallId: "c1", name: "shell", sandbox: { _tag: "none", reason: "unavailable" } }])
      expect(eventsOf(events, "tool.completed")[0]?.payload.output).toBe("ran\n\n[exit code 0]")
    }))

  it.scopedLive("none/off when the sandbox is turned off", () =>
    Effect.gen(function* () {
      const home = yield* tempDir("sandbox-recorded-")
      const sandbox = yield* SandboxLayer.make({ mode: "off", configDir: join(home, "config"), dataDir: join(home, "data") })
      const events = yield* turnWith(sandbox, home)
      expect(eventsOf(events, "tool.started").map((e) => e.payload)).toEqual([{ toolCallId: "c1", name: "shell", sandbox: { _tag: "none", reason: "off" } }])
    }))
})
