import { afterAll, describe, expect, it } from "@effect/vitest"
import { HttpRouter, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { RpcSerialization, RpcServer } from "@effect/rpc"
import { Deferred, Effect, Exit, Layer, Scope } from "effect"
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import { join } from "node:path"
import { packageVersion } from "../../src/app/package-root.js"
import { HostControlRpcs } from "../../src/rpc/host-control.js"
import { runCli, startServer, stop as stopChild } from "../support/cli.js"
import { eventsOf, parseEventLines } from "../support/events.js"
import { keys, openOnPty } from "../support/pty-screen.js"
import { makeTemp } from "../support/temp-dirs.js"

/**
 * The data directory's local host: started, asked and stopped by its commands; a turn started
 * with `run --bg` that outlives its client and is followed and answered with `attach`; a `run`
 * that joins a running host; a host killed mid-turn; a host of another version.
 */

const temps = makeTemp()
afterAll(temps.cleanup)

const setup = (responses: ReadonlyArray<unknown>) => {
  const cwd = temps.dir("host-workspace-")
  const home = temps.dir("host-home-")
  writeFileSync(join(cwd, "script.json"), JSON.stringify({ responses }))
  const env = { CUSTOM_AGENT_HOME: home, CUSTOM_AGENT_CONFIG_HOME: join(home, "config") }
  const cli = (args: ReadonlyArray<string>, timeoutMs = 60_000) => runCli(args, { cwd, env, timeoutMs })
  // Every test stops its host, whatever happened: none is left running.
  const stop = () => cli(["host", "stop", "--now"])
  return { cwd, home, env, cli, stop, socket: join(home, "host.sock") }
}

const pidOf = (status: string) => Number(/pid (\d+)/.exec(status)?.[1])

const waitUntil = async (what: string, test: () => Promise<boolean> | boolean, timeoutMs = 30_000) => {
  const deadline = Date.now() + timeoutMs
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

const writeCall = { chunks: [{ text: "Working on it." }, { toolCall: { name: "write_file", input: { path: "out.txt", content: "written in the host\n" } } }] }

describe("the local host", () => {
  it("starts once per data directory, answers its status on a socket only its user can open, and stops", { timeout: 90_000 }, async () => {
    const { cli, stop, socket } = setup(["hello"])
    try {
      const started = await cli(["host", "start", "--script", "script.json"])
      expect(started.code, started.stderr).toBe(0)
      expect(started.stdout).toMatch(/local host \S+ running for .* \(pid \d+, socket .*host\.sock\)/)
      expect(statSync(socket).mode & 0o777).toBe(0o600)
      const again = await cli(["host", "start"])
      expect(again.code, again.stderr).toBe(0)
      expect(pidOf(again.stdout)).toBe(pidOf(started.stdout))
      const status = await cli(["host", "status"])
      expect(status.stdout).toContain(`pid ${pidOf(started.stdout)}`)
      expect(status.stdout).toContain("no turn running")
      const stopped = await cli(["host", "stop"])
      expect(stopped.code, stopped.stderr).toBe(0)
      expect(stopped.stdout).toContain("local host stopped")
      expect(existsSync(socket)).toBe(false)
      expect((await cli(["host", "status"])).stdout).toContain("no local host runs")
    } finally {
      await stop()
    }
  })

  it("exits by itself once no client is connected and no turn runs for its idle time", { timeout: 90_000 }, async () => {
    const { cli, stop, socket } = setup(["hello"])
    try {
      expect((await cli(["host", "start", "--script", "script.json", "--idle-exit", "1"])).code).toBe(0)
      await waitUntil("the idle host exits and removes its socket", () => !existsSync(socket))
    } finally {
      await stop()
    }
  })

  it("run --bg returns at once; the turn goes on in the host, and attach shows it from its start and answers its question", { timeout: 120_000 }, async () => {
    const { cwd, home, cli, stop } = setup([writeCall, "All done."])
    try {
      const started = await cli(["run", "--bg", "--script", "script.json", "write out.txt"])
      expect(started.code, started.stderr).toBe(0)
      const sessionId = started.stdout.trim()
      expect(sessionId).toMatch(/^ses_/)
      expect(started.stderr).toContain(`follow it: custom-agent attach ${sessionId}`)
      // The question waits in the host with nobody attached.
      await waitUntil("the host's turn waits for an answer", async () => (await cli(["host", "status"])).stdout.includes(`turns running in ${sessionId}`))
      expect(existsSync(join(cwd, "out.txt"))).toBe(false)

      const session = openOnPty(["attach", sessionId], { cwd, home, cols: 100 })
      try {
        await session.waitFor("local host")
        await session.waitFor("Working on it.")
        await session.waitFor("[y] allow once")
        session.type("y")
        await session.waitFor("All done.")
        session.type(keys.ctrlC)
        session.type(keys.ctrlC)
        await session.exit
      } finally {
        session.kill()
      }
      expect(readFileSync(join(cwd, "out.txt"), "utf8")).toBe("written in the host\n")
      const exported = await cli(["sessions", "export", sessionId])
      const events = parseEventLines(exported.stdout)
      expect(new Set(events.map((event) => event.sequence)).size).toBe(events.length)
      expect(eventsOf(events, "turn.completed")).toHaveLength(1)
      expect(eventsOf(events, "permission.resolved")[0]?.payload).toMatchObject({ decision: "allow", by: "user" })
    } finally {
      await stop()
    }
  })

  it("a plain run joins the running host: the host's model answers and the session is the host's, seen live by its other clients", { timeout: 90_000 }, async () => {
    const { cli, stop } = setup(["answered by the host"])
    try {
      expect((await cli(["host", "start", "--script", "script.json"])).code).toBe(0)
      const result = await cli(["run", "hello"])
      expect(result.code, result.stderr).toBe(0)
      expect(result.stdout).toContain("answered by the host")
      const listed = await cli(["sessions", "list"])
      const sessionId = /ses_\w+/.exec(listed.stdout)?.[0] ?? ""
      const events = parseEventLines((await cli(["sessions", "export", sessionId])).stdout)
      expect(eventsOf(events, "session.created")[0]?.payload.client).toBe("rpc:cli")
      // --no-host runs in this process, with its own model.
      const alone = await cli(["run", "--no-host", "--script", "script.json", "again"])
      expect(alone.code, alone.stderr).toBe(0)
      expect(alone.stdout).toContain("answered by the host")
    } finally {
      await stop()
    }
  })

  it("killed mid-turn: nothing committed is lost, the stale socket is replaced, and the turn is closed as interrupted", { timeout: 120_000 }, async () => {
    // Waits a minute before its first chunk: the host is killed while the turn runs.
    const slow = { chunks: [{ text: "never sent" }], delayMs: 60_000 }
    const { cli, stop, socket } = setup([slow, "after the restart"])
    try {
      const started = await cli(["run", "--bg", "--script", "script.json", "a long answer"])
      const sessionId = started.stdout.trim()
      const status = await cli(["host", "status"])
      await waitUntil("the turn runs", async () => (await cli(["host", "status"])).stdout.includes(`turns running in ${sessionId}`))
      process.kill(pidOf(status.stdout), "SIGKILL")
      await waitUntil("the host is gone", async () => (await cli(["host", "status"])).stdout.includes("socket a stopped host left"))
      expect(existsSync(socket)).toBe(true)
      const restarted = await cli(["host", "start", "--script", "script.json"])
      expect(restarted.code, restarted.stderr).toBe(0)
      expect(pidOf(restarted.stdout)).not.toBe(pidOf(status.stdout))
      // The dead host's lease on the turn expires (the store's lease time), then the turn is closed.
      const exported = async () => parseEventLines((await cli(["sessions", "export", sessionId])).stdout)
      await waitUntil("the turn is closed", async () => eventsOf(await exported(), "turn.completed").length > 0)
      const events = await exported()
      expect(eventsOf(events, "user.message").map((event) => event.payload.content)).toEqual(["a long answer"])
      expect(eventsOf(events, "turn.started")).toHaveLength(1)
      const [closed] = eventsOf(events, "turn.completed")
      expect(closed?.payload).toMatchObject({ stopReason: "error", errorCode: "interrupted" })
    } finally {
      await stop()
    }
  })

  it("serve is the data directory's host: a terminal's run joins it, so its page lists the session and follows its turns live; host stop ends it", { timeout: 90_000 }, async () => {
    const { cwd, env, cli, stop } = setup(["answered by serve"])
    const server = await startServer(["--script", "script.json"], { cwd, env })
    try {
      const status = await cli(["host", "status"])
      expect(status.stdout).toContain(`pid ${server.child.pid}`)
      const result = await cli(["run", "hello"])
      expect(result.code, result.stderr).toBe(0)
      expect(result.stdout).toContain("answered by serve")
      const listed = await fetch(`${server.url}/rpc`, {
        method: "POST",
        headers: { authorization: `Bearer ${server.token}`, "content-type": "application/ndjson" },
        body: `${JSON.stringify({ _tag: "Request", id: "1", tag: "ListSessions", payload: {}, headers: [] })}\n`
      })
      expect(await listed.text()).toContain("hello")
      const stopped = await cli(["host", "stop", "--now"])
      expect(stopped.code, stopped.stderr).toBe(0)
      await waitUntil("serve has exited", () => server.child.exitCode !== null)
    } finally {
      await stopChild(server.child)
      await stop()
    }
  })

  /** A stand-in host of `version` on the data directory's socket, recording the stops it is asked for; closing `scope` takes it away. */
  const fakeHost = (home: string, version: string, working: ReadonlyArray<string> = []) =>
    Effect.gen(function* () {
      mkdirSync(home, { recursive: true })
      const stops: Array<string> = []
      const stopped = yield* Deferred.make<void>()
      const control = HostControlRpcs.toLayer({
        HostStatus: () => Effect.succeed({ version, pid: 1, startedAt: new Date().toISOString(), clients: 1, working: [...working], idleExitSeconds: 600 }),
        StopHost: ({ when }) => Effect.zipRight(Effect.sync(() => stops.push(when)), Deferred.succeed(stopped, undefined))
      })
      const app = Layer.unwrapScoped(
        Effect.map(RpcServer.toHttpApp(HostControlRpcs), (rpc) => HttpServer.serve(HttpRouter.empty.pipe(HttpRouter.post("/rpc", rpc))))
      ).pipe(Layer.provide([control, RpcSerialization.layerNdjson]), Layer.provide(NodeHttpServer.layer(() => createServer(), { path: join(home, "host.sock") })))
      const scope = yield* Scope.make()
      yield* Layer.buildWithScope(app, scope)
      return { stops, stopped, scope }
    })

  it.live("a host of an older version is not used: run says so, runs in this process, and asks it to stop once idle", () =>
    Effect.gen(function* () {
      const { cli, home } = setup([])
      const older = yield* fakeHost(home, "0.0.1", ["ses_busy"])
      const result = yield* Effect.promise(() => cli(["run", "hello"]))
      expect(result.code, result.stderr).toBe(0)
      expect(result.stderr).toContain("runs custom-agent 0.0.1")
      expect(result.stderr).toContain("asked to stop once its 1 running turn(s) end")
      expect(result.stderr).toContain("running in this process instead")
      expect(older.stops).toEqual(["idle"])
      yield* Scope.close(older.scope, Exit.void)
    }), 60_000)

  it.live("a host of a newer version is left alone: run says so and runs in this process", () =>
    Effect.gen(function* () {
      const { cli, home } = setup([])
      const newer = yield* fakeHost(home, "999.0.0")
      const result = yield* Effect.promise(() => cli(["run", "hello"]))
      expect(result.code, result.stderr).toBe(0)
      expect(result.stderr).toContain("runs custom-agent 999.0.0")
      expect(result.stderr).toContain("running in this process instead")
      expect(newer.stops).toEqual([])
      yield* Scope.close(newer.scope, Exit.void)
    }), 60_000)

  it.live("host start replaces an idle host of an older version: asked to stop, gone, then one of this version runs", () =>
    Effect.gen(function* () {
      const { cli, home, stop } = setup([])
      const older = yield* fakeHost(home, "0.0.1")
      // The stand-in goes once asked, as a real idle host does.
      yield* Deferred.await(older.stopped).pipe(Effect.zipRight(Scope.close(older.scope, Exit.void)), Effect.fork)
      const started = yield* Effect.promise(() => cli(["host", "start"]))
      try {
        expect(started.code, started.stderr).toBe(0)
        expect(older.stops).toEqual(["idle"])
        const status = yield* Effect.promise(() => cli(["host", "status"]))
        expect(status.stdout).toContain(`local host ${packageVersion()} for`)
      } finally {
        yield* Effect.promise(() => stop())
      }
    }), 90_000)
})
