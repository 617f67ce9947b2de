import { Args, HelpDoc } from "@effect/cli"
import * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { StoreKind } from "../app/locations.js"
import { sessionIdProblem } from "../domain/ids.js"
import { CliError } from "./errors.js"
import * as shared from "./options.js"
import { server, tokenFile } from "./remote.js"

/** Where the session commands work: the local store (data dir, kind), or a server. */
export const where = { dataDir: shared.dataDir, store: shared.store, server, tokenFile }

export interface Where {
  readonly dataDir: Option.Option<string>
  readonly store: StoreKind
  readonly server: Option.Option<string>
  readonly tokenFile: Option.Option<string>
}

/** An id that breaks the one rule is a usage error (exit 2), before any store is opened. */
export const sessionId = Args.text({ name: "session-id" }).pipe(
  Args.mapEffect((id) => {
    const invalid = sessionIdProblem(id)
    return invalid === undefined ? Effect.succeed(id) : Effect.fail(HelpDoc.p(invalid.message))
  }),
  Args.withDescription("The session (see custom-agent sessions list)")
)

export const missing = (sessionId: string) => new CliError({ message: `no session ${sessionId} (see: custom-agent sessions list)` })
