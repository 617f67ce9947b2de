import { isIPv6 } from "node:net"

export interface HostNamesInput {
  /** The address the server listens on (an IPv6 one with or without brackets). */
  readonly boundHost: string
  readonly port: number
  /** More names the operator accepts (`--allowed-host`): `NAME`, or `NAME:PORT` for exactly that. */
  readonly extra: ReadonlyArray<string>
  /** This machine's addresses: a server on `0.0.0.0` or `::` is reached by any of them. */
  readonly interfaceAddresses: ReadonlyArray<string>
}

const inUrl = (address: string) => {
  const bare = address.replace(/^\[(.*)\]$/, "$1")
  return isIPv6(bare) ? `[${bare}]` : bare
}

const hasPort = (name: string) => /^(\[[^\]]+\]|[^:]+):\d+$/.test(name)

/**
 * The Host header values the guard accepts, lower-case: loopback names, the bound address
 * (on a wildcard, each of this machine's addresses), and the operator's names, all with the
 * server's port; on port 80 also without it, as browsers send it. An operator's name without a
 * port is accepted bare too (a reverse proxy forwards it so). Nothing else: a page on another
 * name (DNS rebinding) is refused.
 */
export const acceptedHosts = (input: HostNamesInput): ReadonlyArray<string> => {
  const bound = inUrl(input.boundHost)
  const wildcard = bound === "0.0.0.0" || bound === "[::]"
  const machine = wildcard ? input.interfaceAddresses.filter((a) => bound === "[::]" || !isIPv6(a)).map(inUrl) : []
  const names = ["localhost", "127.0.0.1", "[::1]", bound, ...machine]
  const withPort = names.flatMap((name) => (input.port === 80 ? [`${name}:80`, name] : [`${name}:${input.port}`]))
  const extra = input.extra.flatMap((name) => {
    const lower = name.toLowerCase()
    return hasPort(lower) ? [lower] : [`${inUrl(lower)}:${input.port}`, inUrl(lower)]
  })
  return [...new Set([...withPort, ...extra].map((name) => name.toLowerCase()))]
}
