import { Effect, Schedule } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { clusterStatus } from "../../src/layers/cluster/status.js"
import { runCli, stop } from "../../test/support/cli.js"
import { on, type Runner, startRunner, untilCompleted } from "../../test/support/cluster-runners.js"
import { postgresAvailable, postgresSkipMessage, startServer } from "../../test/support/postgres-server.js"
import { fmt, printMachine } from "./report.js"

/**
 * Scale-out (issue 17): prompts per second through 1, 2 and 3 runner processes on one
 * throwaway Postgres (the scripted model, so the figure is the agent's and the cluster's own
 * cost), and the failover time after a kill -9 of one of two runners (informational; it is
 * mostly the shard lock expiry, here 3 s). `npm run bench -- cluster` (SESSIONS=N, PROMPTS=N
 * per session). All runners share this machine's cores: the curve shows the cluster's
 * overhead and contention, not what more machines would give.
 */

const SESSIONS = Number(process.env["SESSIONS"] ?? 40)
const PROMPTS = Number(process.env["PROMPTS"] ?? 3)

/** Waits until every runner holds shards (they are taken a moment after start). */
const shardsSettled = (database: string, runners: number) =>
  clusterStatus(database).pipe(
    Effect.repeat({ until: (listed) => listed.length === runners && listed.every((runner) => runner.shards > 0), schedule: Schedule.spaced("200 millis") }),
    Effect.timeout("60 seconds")
  )

const withRunners = <A, E>(database: string, count: number, use: (runners: ReadonlyArray<Runner>) => Effect.Effect<A, E>) =>
  Effect.acquireUseRelease(
    Effect.promise(async () => {
      const home = mkdtempSync(join(tmpdir(), "bench-cluster-"))
      const runners = await Promise.all(Array.from({ length: count }, () => startRunner(database, home)))
      return { home, runners }
    }),
    ({ runners }) => Effect.zipRight(shardsSettled(database, count), use(runners)),
    ({ home, runners }) =>
      Effect.promise(async () => {
        await Promise.all(runners.map((runner) => stop(runner.child)))
        rmSync(home, { recursive: true, force: true })
      })
  )

/** SESSIONS sessions, PROMPTS turns each, every call through the next runner in turn. */
const promptsPerSecond = (runners: ReadonlyArray<Runner>) =>
  Effect.gen(function* () {
    let next = 0
    const any = () => runners[next++ % runners.length] ?? runners[0]
    const started = performance.now()
    yield* Effect.forEach(
      Array.from({ length: SESSIONS }),
      () =>
        Effect.gen(function* () {
          const entry = any()
          if (entry === undefined) return
          const { sessionId } = yield* on(entry, (client) => client.CreateSession({ cwd: "/tmp", client: "bench" }))
          for (let i = 0; i < PROMPTS; i++) {
            const through = any()
            if (through === undefined) return
            const receipt = yield* on(through, (client) => client.Prompt({ sessionId, content: `prompt ${i}` }))
            if (receipt._tag === "Started") yield* untilCompleted(through, sessionId, receipt.turnId)
          }
        }),
      { concurrency: 16, discard: true }
    )
    return (SESSIONS * PROMPTS) / ((performance.now() - started) / 1000)
  })

/** Seconds from a kill -9 of one of two runners until every session takes a prompt on the other. */
const failoverSeconds = (runners: ReadonlyArray<Runner>) =>
  Effect.gen(function* () {
    const [survivor, victim] = runners
    if (survivor === undefined || victim === undefined) return Number.NaN
    const sessions = yield* Effect.forEach(Array.from({ length: 20 }), () => on(survivor, (client) => client.CreateSession({ cwd: "/tmp", client: "bench" })))
    victim.child.kill("SIGKILL")
    const killed = performance.now()
    yield* Effect.forEach(
      sessions,
      (view) =>
        on(survivor, (client) => client.Prompt({ sessionId: view.sessionId, content: "after the kill" })).pipe(
          Effect.retry(Schedule.spaced("100 millis")),
          Effect.timeout("60 seconds")
        ),
      { concurrency: "unbounded", discard: true }
    )
    return (performance.now() - killed) / 1000
  })

export const run = async () => {
  if (!postgresAvailable) {
    console.log(`SKIP  ${postgresSkipMessage}`)
    return
  }
  printMachine("start")
  await Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* startServer
        const fresh = Effect.tap(server.freshDatabase, (database) =>
          Effect.promise(() => runCli(["cluster", "migrate", "--database", database]))
        )
        const rates: Array<number> = []
        for (const count of [1, 2, 3]) {
          const database = yield* fresh
          const rate = yield* withRunners(database, count, promptsPerSecond)
          rates.push(rate)
          const ratio = rates[0] === undefined ? 1 : rate / rates[0]
          console.log(`${count} runner${count === 1 ? " " : "s"}  ${rate.toFixed(1)} prompts/s  (${ratio.toFixed(2)}x one runner; ${fmt(SESSIONS * PROMPTS)} prompts)`)
        }
        const seconds = yield* withRunners(yield* fresh, 2, failoverSeconds)
        console.log(`failover after kill -9 of one of two runners (--failover-after 3): ${seconds.toFixed(1)} s until all 20 sessions took a prompt`)
      })
    )
  )
  printMachine("end")
}
