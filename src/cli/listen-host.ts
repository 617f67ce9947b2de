import * as Either from "effect/Either"
import { isIPv4, isIPv6 } from "node:net"
import { messageOf } from "../domain/cause-message.js"

/** The address `serve --host` names, in the forms each use needs. */
export interface ListenHost {
  /** What `listen` takes: an IPv6 address without brackets. */
  readonly bind: string
  /** How a URL (and a Host header) names it: an IPv6 address in brackets. */
  readonly url: string
  /** Only this machine can connect. */
  readonly loopback: boolean
}

/** Accepts a name, an IPv4 address, and an IPv6 address with or without brackets (`[::1]`, `::1`). */
export const parseListenHost = (given: string): Either.Either<ListenHost, string> => {
  const bracketed = /^\[(.*)\]$/.exec(given)
  const bind = bracketed?.[1] ?? given
  if (bracketed !== null && !isIPv6(bind)) return Either.left(`--host ${given}: only an IPv6 address goes in brackets`)
  if (bind === "" || /[\s/@]/.test(bind)) return Either.left(`--host ${JSON.stringify(given)} is not an address or host name`)
  const v6 = isIPv6(bind)
  const loopback = bind === "localhost" || (v6 ? bind === "::1" : isIPv4(bind) && bind.startsWith("127."))
  return Either.right({ bind, url: v6 ? `[${bind}]` : bind, loopback })
}

const reasons: Readonly<Record<string, string>> = {
  EADDRINUSE: "the port is already in use",
  EACCES: "permission denied (ports below 1024 need privileges)",
  EADDRNOTAVAIL: "the address is not one of this machine's",
  ENOTFOUND: "the host name does not resolve",
  EAI_AGAIN: "the host name could not be resolved now"
}

const codeOf = (cause: unknown): string | undefined =>
  typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string" ? cause.code : undefined

/** Why `listen` failed, as one line: the address, the port, the system's code and what it means. */
export const listenFailure = (host: ListenHost, port: number, cause: unknown): string => {
  const code = codeOf(cause)
  const reason = code === undefined ? messageOf(cause) : `${code} (${reasons[code] ?? (cause instanceof Error ? cause.message : code)})`
  return `cannot listen on ${host.url}:${port}: ${reason}`
}
