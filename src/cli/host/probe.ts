import * as Effect from "effect/Effect"
import { existsSync } from "node:fs"
import type { HostStatus } from "../../rpc/host-control.js"
import { describeClientError } from "../../rpc/client.js"
import { HostControlClient, hostControlLayer } from "../../rpc/socket-client.js"

/** What is at a data directory's host socket. */
export type HostProbe =
  | { readonly _tag: "Missing" }
  /** A socket file nothing answers on: its host died (kill -9, a crash) without removing it. */
  | { readonly _tag: "Stale" }
  | { readonly _tag: "Live"; readonly status: HostStatus }
  /** Something answers but refuses us or does not answer in time: not ours to replace. */
  | { readonly _tag: "Refused"; readonly reason: string }

/** A live host answers its status at once; one that takes longer is busy beyond use. */
const PROBE_TIMEOUT = "3 seconds"

const codeIn = (error: unknown): string | undefined => {
  let current: unknown = error
  for (let depth = 0; depth < 6 && typeof current === "object" && current !== null; depth++) {
    if ("code" in current && typeof current.code === "string") return current.code
    current = "cause" in current ? current.cause : undefined
  }
  return undefined
}

/** Asks the socket at `path` for the host's status, with the kept token. */
export const probeHost = (path: string, token: string): Effect.Effect<HostProbe> =>
  existsSync(path)
    ? Effect.flatMap(HostControlClient, (control) => control.HostStatus()).pipe(
        Effect.timeoutFail({ duration: PROBE_TIMEOUT, onTimeout: () => "did not answer within 3 s" }),
        Effect.map((status): HostProbe => ({ _tag: "Live", status })),
        Effect.catchAll((error) => {
          const code = codeIn(error)
          if (code === "ECONNREFUSED" || code === "ENOENT") return Effect.succeed<HostProbe>({ _tag: "Stale" })
          return Effect.succeed<HostProbe>({ _tag: "Refused", reason: typeof error === "string" ? error : describeClientError(error) })
        }),
        Effect.scoped,
        Effect.provide(hostControlLayer({ path, token }))
      )
    : Effect.succeed({ _tag: "Missing" })
