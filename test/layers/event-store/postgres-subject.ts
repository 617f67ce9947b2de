import { Effect } from "effect"
import * as PostgresStore from "../../../src/layers/event-store/postgres.js"
import type { PgServer } from "../../support/postgres.js"
import type { StoreSubject } from "./stores.js"

/** The Postgres store on a test file's server: each location a fresh database, each `open` a new store (a restart). */
export const postgresSubject = (server: () => PgServer): StoreSubject => ({
  name: "postgres",
  location: Effect.map(
    Effect.suspend(() => server().freshDatabase),
    (url) => ({ open: PostgresStore.make({ url }) })
  )
})
