/**
 * Another process opening the same SQLite file, for the first-open test:
 *   node --import tsx test/layers/event-store/sqlite-open-child-main.ts FILE SESSION
 * Prints `ready` once loaded, waits for a line on stdin (so every child opens at the same
 * moment), then opens the store, appends two events, reads them back and prints `ok`, or the
 * failure.
 */
import { Effect } from "effect"
import { once } from "node:events"
import * as SqliteStore from "../../../src/layers/event-store/sqlite.js"
import { range, replayAll } from "./fixtures.js"

const [filename = "", sessionId = "ses_child"] = process.argv.slice(2)

const program = Effect.scoped(
  Effect.gen(function* () {
    const store = yield* SqliteStore.make({ filename })
    yield* store.appendAll(range(sessionId, 1, 2))
    return (yield* replayAll(store, sessionId)).length
  })
)

process.stdout.write("ready\n")
await once(process.stdin, "data")
const exit = await Effect.runPromiseExit(program)
process.stdout.write(exit._tag === "Success" ? `ok ${exit.value}\n` : `failed ${JSON.stringify(String(exit.cause))}\n`)
process.exit(0)
