import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Option, Schedule, Stream } from "effect"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { AgentEvent } from "../../src/domain/events.js"
import { clusterStatus } from "../../src/layers/cluster/status.js"
import { runCli, stop } from "../support/cli.js"
import { exported, on, type Runner, startRunner, untilCompleted } from "../support/cluster-runners.js"
import { postgresAvailable, postgresSuite, serverForFile } from "../support/postgres.js"

/** Every sequence once, every turn closed, no request twice. */
const expectSound = (log: ReadonlyArray<AgentEvent>) => {
  expect(log.map((event) => event.sequence)).toEqual(log.map((_, index) => index + 1))
  const started = log.filter((event) => event.type === "turn.started").map((event) => event.turnId)
  const completed = log.filter((event) => event.type === "turn.completed").map((event) => event.turnId)
  expect(completed).toEqual(started)
  const requests = log.flatMap((event) => (event.type === "user.message" && event.payload.requestId !== undefined ? [event.payload.requestId] : []))
  expect(new Set(requests).size).toBe(requests.length)
}

/** A prompt on a session, retried while its runner is being taken over; started or queued behind a turn. */
const takesPrompt = (runner: Runner, sessionId: string, content: string) =>
  on(runner, (client) => client.Prompt({ sessionId, content })).pipe(
    Effect.retry(Schedule.intersect(Schedule.spaced("500 millis"), Schedule.recurs(60))),
    Effect.timeout("40 seconds"),
    Effect.tap((receipt) => Effect.sync(() => expect(["Started", "Queued"]).toContain(receipt._tag)))
  )

/** The session's whole log once it is idle again (no turn, nothing queued), checked sound. */
const settledLog = (runner: Runner, sessionId: string) =>
  on(runner, (client) => client.GetSession({ sessionId })).pipe(
    Effect.repeat({ until: (current) => !current.running && current.inbox.nextTurn.length === 0, schedule: Schedule.spaced("200 millis") }),
    Effect.timeout("40 seconds"),
    Effect.zipRight(exported(runner, sessionId)),
    Effect.tap((log) => Effect.sync(() => expectSound(log)))
  )

describe.skipIf(!postgresAvailable)(postgresSuite("serve --cluster: sessions on several runners"), () => {
  const server = serverForFile()

  /** A fresh database, migrated by `cluster migrate` or not, and two runners started at the same instant. */
  const clusterOf = (options: { readonly migrate: boolean; readonly firstAnswerMs?: number }) =>
    Effect.acquireRelease(
      Effect.promise(async () => {
        const database = await Effect.runPromise(server().freshDatabase)
        const home = mkdtempSync(join(tmpdir(), "cluster-"))
        const script = join(home, "script.json")
        writeFileSync(script, JSON.stringify({ responses: [{ chunks: [{ text: "first answer" }], delayMs: options.firstAnswerMs ?? 2500 }, "second answer", "third answer"] }))
        if (options.migrate) expect((await runCli(["cluster", "migrate", "--database", database])).code).toBe(0)
        const runners = await Promise.all([startRunner(database, home, script), startRunner(database, home, script)])
        // Shards are taken a moment after start: wait until each runner holds some.
        await Effect.runPromise(
          clusterStatus(database).pipe(
            Effect.repeat({ until: (listed) => listed.length === 2 && listed.every((runner) => runner.shards > 0), schedule: Schedule.spaced("200 millis") }),
            Effect.timeout("30 seconds")
          )
        )
        return { database, home, runners }
      }),
      ({ home, runners }) =>
        Effect.promise(async () => {
          await Promise.all(runners.map((runner) => stop(runner.child)))
          rmSync(home, { recursive: true, force: true })
        })
    )
  const cluster = clusterOf({ migrate: true })

  it.live(
    "any runner takes any session: prompts and model changes through either run on the session's owner, and the logs stay whole",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const { runners } = yield* cluster
          const [a, b] = runners
          if (a === undefined || b === undefined) return
          const sessions = yield* Effect.forEach(Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? a : b)), (runner) =>
            on(runner, (client) => client.CreateSession({ cwd: "/tmp", client: "test" }))
          )
          yield* Effect.forEach(
            sessions,
            (view, i) =>
              Effect.gen(function* () {
                const through = i % 2 === 0 ? b : a
                const receipt = yield* on(through, (client) => client.Prompt({ sessionId: view.sessionId, content: `hello ${i}` }))
                if (receipt._tag !== "Started") return yield* Effect.dieMessage("a prompt on an idle session was queued")
                yield* untilCompleted(i % 2 === 0 ? a : b, view.sessionId, receipt.turnId)
              }),
            { concurrency: "unbounded" }
          )
          for (const view of sessions) {
            const log = yield* exported(a, view.sessionId)
            expectSound(log)
            const ranOn = log.flatMap((event) => (event.type === "turn.started" && event.payload.runner !== undefined ? [event.payload.runner] : []))
            expect(ranOn).toHaveLength(1)
            expect(runners.map((runner) => runner.address)).toContain(ranOn[0])
          }
          // A model change through either runner is the owner's, recorded once, and every runner reads it.
          const first = sessions[0]
          if (first === undefined) return
          yield* on(b, (client) => client.SetModel({ sessionId: first.sessionId, model: "anthropic/claude-haiku-4-5", by: "test" }))
          yield* on(a, (client) => client.SetModel({ sessionId: first.sessionId, model: "anthropic/claude-haiku-4-5", by: "test" }))
          expect((yield* on(a, (client) => client.GetSession({ sessionId: first.sessionId }))).model).toBe("anthropic/claude-haiku-4-5")
          const changes = (yield* exported(b, first.sessionId)).flatMap((event) => (event.type === "session.model_changed" ? [event.payload] : []))
          expect(changes).toEqual([{ model: "anthropic/claude-haiku-4-5", by: "rpc:test" }])
        })
      ),
    60_000
  )

  it.live(
    "kill -9 of a runner in the middle of 20 sessions' turns: they take new prompts on the survivor, with every turn closed and nothing lost",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const { runners } = yield* cluster
          const [a, b] = runners
          if (a === undefined || b === undefined) return
          // Created and prompted through either runner; the first answer takes 2.5 s, so the kill lands while these turns run.
          const sessions = yield* Effect.forEach(Array.from({ length: 20 }), (_, i) =>
            on(i % 2 === 0 ? a : b, (client) => client.CreateSession({ cwd: "/tmp", client: "test" }))
          )
          yield* Effect.forEach(sessions, (view, i) => on(i % 2 === 0 ? b : a, (client) => client.Prompt({ sessionId: view.sessionId, content: "slow" })), {
            concurrency: "unbounded"
          })
          // A subscriber attached to the runner about to die.
          const watched = sessions[0]?.sessionId ?? ""
          const seenOnB: Array<number> = []
          const followingB = yield* Effect.fork(
            on(b, (client) =>
              client.Subscribe({ sessionId: watched, afterSequence: 0 }).pipe(
                Stream.runForEach((frame) => Effect.sync(() => (frame._tag === "Event" ? seenOnB.push(frame.event.sequence) : undefined)))
              )
            ).pipe(Effect.either)
          )
          yield* Effect.sync(() => seenOnB.length).pipe(Effect.repeat({ until: (count) => count > 0, schedule: Schedule.spaced("50 millis") }))
          b.child.kill("SIGKILL")
          const started = Date.now()
          expect((yield* Fiber.join(followingB).pipe(Effect.timeout("20 seconds")))._tag).toBe("Left")
          yield* Effect.forEach(
            sessions,
            (view) =>
              // Queued behind a turn that still runs on the survivor, or started at once.
              takesPrompt(a, view.sessionId, "after the kill"),
            { concurrency: "unbounded" }
          )
          const tookOver = (Date.now() - started) / 1000
          expect(tookOver).toBeLessThan(40)
          let interrupted = 0
          let watchedLength = 0
          for (const view of sessions) {
            const log = yield* settledLog(a, view.sessionId)
            const answers = log.filter((event) => event.type === "user.message").map((event) => event.payload.content)
            expect(answers).toEqual(["slow", "after the kill"])
            if (view.sessionId === watched) watchedLength = log.length
            interrupted += log.filter((event) => event.type === "turn.completed" && event.payload.stopReason === "error" && event.payload.errorCode === "interrupted").length
          }
          // The dead runner owned some of the twenty (about half): their first turns were closed, not re-run.
          expect(interrupted).toBeGreaterThan(0)
          // The subscriber reconnects to the survivor from its last sequence: no gap, no duplicate.
          const resumed = yield* on(a, (client) =>
            client.Subscribe({ sessionId: watched, afterSequence: seenOnB.at(-1) ?? 0 }).pipe(
              Stream.filterMap((frame) => (frame._tag === "Event" ? Option.some(frame.event.sequence) : Option.none())),
              Stream.takeUntil((sequence) => sequence >= watchedLength),
              Stream.runCollect
            )
          )
          expect([...seenOnB, ...resumed]).toEqual(Array.from({ length: watchedLength }, (_, index) => index + 1))
        })
      ),
    120_000
  )

  it.live(
    "rewind, redo and fork through either runner run on the session's owner",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const { runners } = yield* clusterOf({ migrate: true, firstAnswerMs: 0 })
          const [a, b] = runners
          if (a === undefined || b === undefined) return
          const sessions = yield* Effect.forEach(Array.from({ length: 4 }), () => on(a, (client) => client.CreateSession({ cwd: "/tmp", client: "test" })))
          for (const [i, view] of sessions.entries()) {
            const [first, second] = i % 2 === 0 ? [a, b] : [b, a]
            for (const runner of [a, b]) {
              const receipt = yield* on(runner, (client) => client.Prompt({ sessionId: view.sessionId, content: `turn on ${runner.address}` }))
              if (receipt._tag !== "Started") return yield* Effect.dieMessage("a prompt on an idle session was queued")
              yield* untilCompleted(runner, view.sessionId, receipt.turnId)
            }
            const rewound = yield* on(first, (client) => client.Rewind({ sessionId: view.sessionId, to: { _tag: "Turn", turn: 2 }, what: "conversation", by: "test" }))
            expect(rewound.restoredPaths).toEqual([])
            expect(rewound.conversationTo).toBeGreaterThan(0)
            yield* on(second, (client) => client.Redo({ sessionId: view.sessionId, by: "test" }))
            const fork = yield* on(second, (client) => client.ForkSession({ sessionId: view.sessionId, by: "test" }))
            const receipt = yield* on(first, (client) => client.Prompt({ sessionId: fork.sessionId, content: "on the fork" }))
            if (receipt._tag !== "Started") return yield* Effect.dieMessage("a prompt on a new fork was queued")
            yield* untilCompleted(first, fork.sessionId, receipt.turnId)

            const log = yield* exported(a, view.sessionId)
            expectSound(log)
            expect(log.filter((event) => event.type === "conversation.rewound").map((event) => event.payload.redo === true)).toEqual([false, true])
            const forked = yield* exported(b, fork.sessionId)
            expectSound(forked)
            expect(forked.find((event) => event.type === "session.forked")?.payload).toMatchObject({ sourceSessionId: view.sessionId })
            expect(forked.filter((event) => event.type === "turn.completed").map((event) => event.payload.stopReason)).toEqual(["final", "final", "final"])
          }
        })
      ),
    120_000
  )

  it.live(
    "slash commands through either runner are listed and expanded on the session's owner, where its workspace is",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const { runners } = yield* clusterOf({ migrate: true, firstAnswerMs: 0 })
          const [a, b] = runners
          if (a === undefined || b === undefined) return
          const cwd = mkdtempSync(join(tmpdir(), "cluster-commands-"))
          yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(cwd, { recursive: true, force: true })))
          mkdirSync(join(cwd, ".claude", "commands"), { recursive: true })
          writeFileSync(join(cwd, ".claude", "commands", "greet.md"), "Say hello to $1.\n")
          for (const [created, through] of [[a, b], [b, a]] as const) {
            const view = yield* on(created, (client) => client.CreateSession({ cwd, client: "test" }))
            const listed = yield* on(through, (client) => client.ListCommands({ sessionId: view.sessionId }))
            expect(listed.commands.find((command) => command.name === "greet")?.source).toBe("project")
            const receipt = yield* on(through, (client) => client.Prompt({ sessionId: view.sessionId, content: "/greet Ada" }))
            if (receipt._tag !== "Started") return yield* Effect.dieMessage("a prompt on an idle session was queued")
            yield* untilCompleted(through, view.sessionId, receipt.turnId)
            const log = yield* exported(created, view.sessionId)
            expectSound(log)
            const message = log.find((event) => event.type === "user.message")
            expect(message?.type === "user.message" ? [message.payload.content, message.payload.command?.name] : []).toEqual(["Say hello to Ada.", "greet"])
          }
        })
      ),
    120_000
  )

  it.live(
    "two runners started at the same instant on an empty database both come up",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          for (let round = 0; round < 2; round++) {
            const { database, runners } = yield* clusterOf({ migrate: false })
            const status = yield* Effect.promise(() => runCli(["cluster", "status", "--database", database, "--json"]))
            expect(status.code).toBe(0)
            const listed: ReadonlyArray<{ readonly address: string }> = JSON.parse(status.stdout)
            expect(listed.map((runner) => runner.address).sort()).toEqual(runners.map((runner) => runner.address).sort())
          }
        })
      ),
    120_000
  )

  it.live(
    "SIGTERM: a stopping runner lets its running turns finish before it leaves; its sessions then go on on the other",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          // Turns longer than the cluster's own shutdown takes: only the drain lets them finish.
          const { runners } = yield* clusterOf({ migrate: true, firstAnswerMs: 8000 })
          const [a, b] = runners
          if (a === undefined || b === undefined) return
          const sessions = yield* Effect.forEach(Array.from({ length: 12 }), () => on(a, (client) => client.CreateSession({ cwd: "/tmp", client: "test" })))
          yield* Effect.forEach(sessions, (view) => on(a, (client) => client.Prompt({ sessionId: view.sessionId, content: "slow" })), {
            concurrency: "unbounded"
          })
          const exited = new Promise<number | null>((resolve) => b.child.once("exit", (code) => resolve(code)))
          b.child.kill("SIGTERM")
          expect(yield* Effect.promise(() => exited)).toBe(130)
          for (const view of sessions) {
            yield* takesPrompt(a, view.sessionId, "after the stop")
          }
          let ranOnTheStopped = 0
          for (const view of sessions) {
            const log = yield* settledLog(a, view.sessionId)
            expect(log.flatMap((event) => (event.type === "turn.completed" ? [event.payload.stopReason] : []))).toEqual(["final", "final"])
            if (log.some((event) => event.type === "turn.started" && event.payload.runner === b.address)) ranOnTheStopped++
          }
          // About half the sessions were the stopped runner's: their turns finished there.
          expect(ranOnTheStopped).toBeGreaterThan(0)
        })
      ),
    120_000
  )
})

describe("serve --cluster refuses to start without what it needs", () => {
  it.live("no runner address, or no token: one clear line and exit 1, before connecting anywhere", () =>
    Effect.gen(function* () {
      const noAddress = yield* Effect.promise(() => runCli(["serve", "--cluster", "postgres://127.0.0.1:1/x"], { env: { CUSTOM_AGENT_TOKEN: "a-long-enough-token" } }))
      expect(noAddress.code).toBe(1)
      expect(noAddress.stderr).toContain("--runner-address")
      const badAddress = yield* Effect.promise(() =>
        runCli(["serve", "--cluster", "postgres://127.0.0.1:1/x", "--runner-address", "nowhere"], { env: { CUSTOM_AGENT_TOKEN: "a-long-enough-token" } })
      )
      expect(badAddress.code).toBe(1)
      expect(badAddress.stderr).toContain("is not HOST:PORT")
      const noToken = yield* Effect.promise(() => runCli(["serve", "--cluster", "postgres://127.0.0.1:1/x", "--runner-address", "127.0.0.1:1"]))
      expect(noToken.code).toBe(1)
      expect(noToken.stderr).toContain("token")
    }))
})
