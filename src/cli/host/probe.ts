import * as Effect from "effect/Effect"
import { lstatSync, type Stats } from "node:fs"
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

/**
 * Why the entry at `path` is not a host of this user's to ask, or undefined when it may be:
 * the token goes only to a socket this user made (judged without following a link), so a
 * socket or link someone else put in the data directory never hears it.
 */
const socketOwnerProblem = (stat: Stats): string | undefined => {
  if (!stat.isSocket()) return stat.isSymbolicLink() ? "is a symbolic link, not a socket: not asked" : "is not a socket: not asked"
  const uid = process.getuid?.()
  if (uid !== undefined && stat.uid !== uid) return `is owned by another user (uid ${stat.uid}): not asked`
  return undefined
}

/** Asks the socket at `path` for the host's status, with the kept token (only when it is this user's own socket). */
export const probeHost = (path: string, token: string): Effect.Effect<HostProbe> =>
  Effect.suspend(() => {
    const stat = lstatSync(path, { throwIfNoEntry: false })
    if (stat === undefined) return Effect.succeed<HostProbe>({ _tag: "Missing" })
    const problem = socketOwnerProblem(stat)
    if (problem !== undefined) return Effect.succeed<HostProbe>({ _tag: "Refused", reason: problem })
    return Effect.flatMap(HostControlClient, (control) => control.HostStatus()).pipe(
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
  })
