import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Fiber, Layer, Schedule, Stream } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import type { SessionListFrame } from "../../src/domain/host.js"
import { AgentHost } from "../../src/host/AgentHost.js"
import { SessionWatchTiming } from "../../src/host/session-watch.js"
import * as SqliteStore from "../../src/layers/event-store/sqlite.js"
import { replayAll } from "../support/engine-harness.js"
import { hostTestLayer } from "../support/host-harness.js"

const root = fileURLToPath(new URL("../../", import.meta.url))
const tsxLoader = pathToFileURL(join(root, "node_modules/tsx/dist/loader.mjs")).href
const LEASE_TTL_MS = 1000

/** A temporary directory holding the shared database file and the child's workspace, removed with the scope. */
const place = Effect.acquireRelease(
  Effect.sync(() => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "cross-process-")))
    mkdirSync(join(dir, "workspace"))
    return { dir, filename: join(dir, "events.db"), workspace: join(dir, "workspace") }
  }),
  ({ dir }) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

/** `custom-agent run` stand-in: a child process running a turn on the file; resolves its session's id once the turn waits on its question. */
const startChild = (filename: string, workspace: string) =>
  Effect.acquireRelease(
    Effect.sync(() =>
      spawn(process.execPath, ["--import", tsxLoader, join(root, "test/host/turn-child-main.ts"), filename, workspace, String(LEASE_TTL_MS)], {
        stdio: ["ignore", "pipe", "pipe"]
      })
    ),
    (child) => Effect.sync(() => child.kill("SIGKILL"))
  ).pipe(
    Effect.flatMap((child) =>
      Effect.async<{ readonly child: ChildProcess; readonly sessionId: string }, Error>((resume) => {
        let out = ""
        let err = ""
        child.stderr?.on("data", (chunk: Buffer) => (err += chunk.toString("utf8")))
        child.stdout?.on("data", (chunk: Buffer) => {
          out += chunk.toString("utf8")
          const line = out.split("\n")[0]
          if (out.includes("\n") && line !== undefined) resume(Effect.succeed({ child, sessionId: line.trim() }))
        })
        child.on("exit", (code) => resume(Effect.fail(new Error(`the child exited (${code}) before its turn waited:\n${err}`))))
      }).pipe(Effect.timeoutFail({ duration: "60 seconds", onTimeout: () => new Error("the child never started its turn") }))
    )
  )

const exited = (child: ChildProcess) =>
  Effect.async<void>((resume) => {
    if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
    child.on("exit", () => resume(Effect.void))
  })

const eventually = <A, E, R>(effect: Effect.Effect<A, E, R>, check: (a: A) => boolean) =>
  effect.pipe(Effect.repeat({ until: check, schedule: Schedule.spaced("50 millis") }), Effect.timeout("10 seconds"))

describe("the session list across processes on one SQLite file", () => {
  it.live(
    "a turn another process runs shows running and is not closed here; killed with -9, it shows interrupted with no question pending",
    () =>
      Effect.gen(function* () {
        const { filename, workspace } = yield* place
        const { child, sessionId } = yield* startChild(filename, workspace)
        // This process: a host on the same file, as `custom-agent serve` would be.
        const here = yield* Layer.build(
          hostTestLayer(SqliteStore.layer({ filename, leaseTtlMs: LEASE_TTL_MS })).pipe(
            Layer.provide(Layer.succeed(SessionWatchTiming, { coalesce: "50 millis", poll: "200 millis", keepAlive: "1 minute" }))
          )
        )
        const host = Context.get(here, AgentHost)
        const log = replayAll(sessionId).pipe(Effect.provide(here))
        const lineOf = Effect.map(host.listSessions, (list) => list.find((line) => line.sessionId === sessionId))
        const frames: Array<SessionListFrame> = []
        const watching = yield* host.watchSessions.pipe(Stream.runForEach((frame) => Effect.sync(() => frames.push(frame))), Effect.fork)

        // The child's turn holds the session's lease: running, and titled by its first prompt there.
        expect(yield* lineOf).toMatchObject({ status: "running", running: true, title: "write x.txt" })
        yield* eventually(Effect.sync(() => frames[0]), (frame) => frame !== undefined)
        expect(frames[0]).toMatchObject({ _tag: "Snapshot", sessions: [{ sessionId, status: "running" }] })
        // Opening it here neither closes the live turn nor shows a question this process cannot answer.
        const view = yield* host.getSession(sessionId)
        expect(view.pendingPermissions).toEqual([])
        expect((yield* log).at(-1)?.type).toBe("permission.requested")
        // Nor can a turn start here while the child runs one.
        expect((yield* Effect.flip(host.prompt({ sessionId, content: "me too" })))._tag).toBe("TurnInProgress")
        expect(yield* lineOf).toMatchObject({ status: "running" })

        const killedAt = Date.now()
        child.kill("SIGKILL")
        yield* exited(child)
        yield* eventually(lineOf, (line) => line?.status === "interrupted")
        // Its lease expired unrenewed: at most one expiry after the kill, plus a look.
        expect(Date.now() - killedAt).toBeLessThan(LEASE_TTL_MS + 2000)
        expect(yield* lineOf).toMatchObject({ running: false, archived: false })
        yield* eventually(
          Effect.sync(() => frames.some((frame) => frame._tag === "Updated" && frame.session.sessionId === sessionId && frame.session.status === "interrupted")),
          (seen) => seen
        )

        // Opening it now closes the turn nobody runs: idle, nothing pending.
        const reopened = yield* host.getSession(sessionId)
        expect(reopened.pendingPermissions).toEqual([])
        expect((yield* log).at(-1)).toMatchObject({ type: "turn.completed", payload: { stopReason: "error", errorCode: "interrupted" } })
        expect(yield* lineOf).toMatchObject({ status: "idle" })
        yield* Fiber.interrupt(watching)
      }).pipe(Effect.scoped),
    90_000
  )
})
