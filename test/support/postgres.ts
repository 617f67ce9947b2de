import { Effect, Exit, Scope } from "effect"
import { afterAll, beforeAll } from "vitest"
import { type PgServer, startServer } from "./postgres-server.js"

export * from "./postgres-server.js"

/** Starts one server for the test file (in beforeAll) and removes it in afterAll; call inside the file's describe. */
export const serverForFile = (): (() => PgServer) => {
  const scope = Effect.runSync(Scope.make())
  let server: PgServer | undefined
  beforeAll(async () => {
    server = await Effect.runPromise(Scope.extend(startServer, scope))
  }, 120_000)
  afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)), 60_000)
  return () => {
    if (server === undefined) throw new Error("the test PostgreSQL server is not running (did beforeAll fail?)")
    return server
  }
}
