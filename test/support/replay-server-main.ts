import { NodeRuntime } from "@effect/platform-node"
import { Console, Effect } from "effect"
import { start } from "./replay-server.js"

/**
 * The replay server as a process, for benchmarks that need it outside the test runner:
 *   npx tsx test/support/replay-server-main.ts --fixture FILE [--port N]
 * prints `{"url":"http://127.0.0.1:<port>"}` on one line once it listens, serves until it is
 * killed (SIGINT/SIGTERM close it cleanly), and reports what it recorded at GET /__requests.
 */
const argument = (name: string): string | undefined => {
  const index = process.argv.indexOf(name)
  return index === -1 ? undefined : process.argv[index + 1]
}

const program = Effect.gen(function* () {
  const fixture = argument("--fixture")
  if (fixture === undefined) return yield* Effect.fail(new Error("usage: replay-server-main --fixture FILE [--port N]"))
  const portText = argument("--port") ?? "0"
  const port = Number(portText)
  if (!Number.isInteger(port) || port < 0 || port > 65_535) return yield* Effect.fail(new Error(`--port: not a port number: ${portText}`))
  const server = yield* start(fixture, { port })
  yield* Console.log(JSON.stringify({ url: server.url }))
  return yield* Effect.never
})

NodeRuntime.runMain(Effect.scoped(program))
