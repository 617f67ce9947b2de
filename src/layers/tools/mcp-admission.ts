import type { McpServerStatus } from "../../services/McpHub.js"
import type { ConfiguredServer } from "./mcp-config.js"
import { toolNamesOverlap } from "./mcp-names.js"

/**
 * Which configured servers a session may start. The user's own servers (their `mcp.json`
 * and those their editor gives the session) always; a project's only once a person trusted
 * the project's configuration as it is, and never one that would take the place, or the tool
 * names, of a server of the user's.
 */

/**
 * What the project's trust says about its MCP servers: trusted, for the servers these lines
 * describe (`projectServerLines` of the file as it was hashed), or not, and why.
 */
export type ProjectServersTrust =
  | { readonly trusted: true; readonly servers: ReadonlyArray<string> }
  | { readonly trusted: false; readonly why: string }

/** A configured server a session leaves out, and why (for its log and `mcp list`). */
export interface SkippedServer {
  readonly server: ConfiguredServer
  readonly reason: string
}

export interface Admission {
  /** What the session starts (or lists as disabled), the user's first. */
  readonly servers: ReadonlyArray<ConfiguredServer>
  readonly skipped: ReadonlyArray<SkippedServer>
}

/**
 * One line per server a project's file would start: everything that decides what runs or what
 * is contacted, quoted as JSON so that no two configurations read alike. Trust is given to
 * these lines, and a server runs only while its file still reads the same.
 */
export const describeServer = ({ config }: ConfiguredServer): string => {
  if ("command" in config) {
    const env = Object.keys(config.env).length === 0 ? "" : ` with env ${JSON.stringify(config.env)}`
    const cwd = config.cwd === undefined ? "" : ` in ${JSON.stringify(config.cwd)}`
    return `${JSON.stringify(config.name)} runs ${JSON.stringify([config.command, ...config.args])}${cwd}${env}`
  }
  const headers = Object.keys(config.headers).length === 0 ? "" : ` with headers ${JSON.stringify(config.headers)}`
  return `${JSON.stringify(config.name)} connects to ${JSON.stringify(config.url)}${headers}`
}

/** The lines a project's servers are trusted by: those it would start (a disabled one starts nothing). */
export const projectServerLines = (servers: ReadonlyArray<ConfiguredServer>): ReadonlyArray<string> =>
  servers.filter((server) => server.disabled !== true).map(describeServer)

const sameLines = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) => a.length === b.length && a.every((line, i) => line === b[i])

/**
 * The user's servers (`own`: their file's, then their client's) and the project's that may
 * join them. A project server is dropped when a server of the user's has its name, or one
 * whose tool names could read as its own (so it never inherits rules written for the user's);
 * the rest only when the trusted lines are exactly the servers read now.
 */
export const admitServers = (
  own: ReadonlyArray<ConfiguredServer>,
  project: ReadonlyArray<ConfiguredServer>,
  trust: ProjectServersTrust
): Admission => {
  const skipped: Array<SkippedServer> = []
  const trustedNow = trust.trusted && sameLines(projectServerLines(project), trust.servers)
  const untrusted = trust.trusted ? "the project's mcp.json changed since it was trusted" : trust.why
  const joining = project.filter((server) => {
    const mine = own.find((user) => toolNamesOverlap(user.config.name, server.config.name))
    if (mine !== undefined) {
      const clash =
        mine.config.name === server.config.name
          ? "one of your own servers has this name"
          : `its tool names could be read as those of your own server "${mine.config.name}"`
      skipped.push({ server, reason: `not used: ${clash} (a project's server never stands in for yours)` })
      return false
    }
    if (!trustedNow && server.disabled !== true) {
      skipped.push({ server, reason: `not started: ${untrusted} (review it with custom-agent trust)` })
      return false
    }
    return trustedNow
  })
  return { servers: [...own, ...joining], skipped }
}

/** A skipped server as a status: listed, never started. */
export const skippedStatus = ({ server, reason }: SkippedServer): McpServerStatus => ({
  name: server.config.name,
  transport: "command" in server.config ? "stdio" : "http",
  origin: server.origin,
  state: "skipped",
  message: reason,
  tools: []
})
