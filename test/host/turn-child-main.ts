/**
 * Another process on the same SQLite file, for the cross-process status test:
 *   node --import tsx test/host/turn-child-main.ts FILE WORKSPACE LEASE_TTL_MS
 * Creates an untitled session and starts a turn that stops at a permission question nobody
 * here answers, prints the session's id once the question is in the log, then waits to be killed.
 */
import { Effect, Fiber, Stream } from "effect"
import { AgentHost } from "../../src/host/AgentHost.js"
import * as SqliteStore from "../../src/layers/event-store/sqlite.js"
import { sandboxOff } from "../../src/layers/sandbox/off.js"
import { localTools } from "../../src/layers/tools/local.js"
import { hostTestLayer } from "../support/host-harness.js"

const [filename = "", workspace = "", ttl = "1000"] = process.argv.slice(2)
const script = { responses: [{ chunks: [{ toolCall: { name: "write_file", input: { path: "x.txt", content: "x" } } }] }, "written"] }

const program = Effect.gen(function* () {
  const host = yield* AgentHost
  const { sessionId } = yield* host.createSession({ cwd: workspace, client: "cli" })
  const asked = yield* host.subscribe(sessionId, 0).pipe(
    Stream.takeUntil((frame) => frame._tag === "Event" && frame.event.type === "permission.requested"),
    Stream.runDrain,
    Effect.fork
  )
  yield* host.prompt({ sessionId, content: "write x.txt" })
  yield* Fiber.join(asked)
  yield* Effect.sync(() => process.stdout.write(`${sessionId}\n`))
  return yield* Effect.never
})

Effect.runFork(
  program.pipe(
    Effect.provide(hostTestLayer(SqliteStore.layer({ filename, leaseTtlMs: Number(ttl) }), script, { tools: localTools(sandboxOff) }))
  )
)
