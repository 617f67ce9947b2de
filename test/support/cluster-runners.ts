import { Effect, Option, Stream } from "effect"
import type { ChildProcess } from "node:child_process"
import { createServer } from "node:net"
import { join } from "node:path"
import type { AgentEvent } from "../../src/domain/events.js"
import { AgentClient, clientLayer } from "../../src/rpc/client.js"
import { startServer } from "./cli.js"

/** Runner processes of `serve --cluster` for tests and benches, and calls to their API. */

export const TOKEN = "cluster-test-token"

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))))
    })
  })

export interface Runner {
  readonly url: string
  readonly address: string
  readonly child: ChildProcess
}

export const startRunner = async (database: string, home: string, script?: string, failoverAfter = 3): Promise<Runner> => {
  const address = `127.0.0.1:${await freePort()}`
  const started = await startServer(
    ["--cluster", database, "--runner-address", address, "--failover-after", String(failoverAfter), ...(script === undefined ? [] : ["--script", script])],
    { env: { CUSTOM_AGENT_HOME: home, XDG_CONFIG_HOME: join(home, "config"), CUSTOM_AGENT_TOKEN: TOKEN } }
  )
  return { url: started.url, address, child: started.child }
}

/** Calls a runner's API. */
export const on = <A, E>(runner: Runner, use: (client: AgentClient["Type"]) => Effect.Effect<A, E>) =>
  Effect.scoped(Effect.flatMap(AgentClient, use)).pipe(Effect.provide(clientLayer({ url: runner.url, token: TOKEN })))

/** The session's events up to the completion of `turnId`, followed on `runner`. */
export const untilCompleted = (runner: Runner, sessionId: string, turnId: string) =>
  on(runner, (client) =>
    client.Subscribe({ sessionId, afterSequence: 0 }).pipe(
      Stream.filterMap((frame) => (frame._tag === "Event" ? Option.some(frame.event) : Option.none())),
      Stream.takeUntil((event) => event.type === "turn.completed" && event.turnId === turnId),
      Stream.runCollect
    )
  )

export const exported = (runner: Runner, sessionId: string) =>
  on(runner, (client) => Stream.runCollect(client.ExportSession({ sessionId }))).pipe(Effect.map((events): ReadonlyArray<AgentEvent> => [...events]))

