import { describe } from "@effect/vitest"
import { postgresAvailable, postgresSuite, serverForFile } from "../../support/postgres.js"
import { eventStoreContract } from "./contract.js"
import { postgresSubject } from "./postgres-subject.js"

// The contract, unchanged, on a throwaway server this file starts once.
describe.skipIf(!postgresAvailable)(postgresSuite("Postgres store"), () => {
  eventStoreContract(postgresSubject(serverForFile()))
})
