import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { join } from "node:path"
import type { McpServerConfig, McpServerOrigin } from "../../services/McpHub.js"
import { readOptionalJson } from "../optional-json-file.js"

/**
 * MCP server configuration files, in the `mcpServers` shape other agents use:
 *
 * ```json
 * { "mcpServers": {
 *     "fs":     { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."], "env": { "TOKEN": "${MY_TOKEN}" } },
 *     "remote": { "url": "https://example.com/mcp", "headers": { "Authorization": "Bearer ${REMOTE_TOKEN}" } } } }
 * ```
 *
 * An entry is stdio when it has `command` (or `"type": "stdio"`), Streamable HTTP when it has
 * `url` (or `"type": "http" | "streamable-http"`). Optional per entry: `cwd` (relative to the
 * session's working directory), `timeout` (ms a tool call may take), `startupTimeout` (ms),
 * `disabled: true` (kept in the list, never started). Unknown fields are ignored, so a file shared with other tools
 * works. In the user's own file, `${VAR}` in `env` and `headers` values is replaced by the
 * environment variable VAR of this process and `${VAR:-fallback}` falls back when VAR is
 * unset or empty; a server that names an unset variable without a fallback does not start
 * (its status says which). A project's file is written by whoever wrote the repository, so
 * nothing in it is expanded: a project server whose `env` or `headers` names a variable does
 * not start, and its status says to configure it in the user's file instead.
 * A stdio server does not inherit our whole environment: it gets the allowlisted variables
 * (subprocess-env.ts) plus its `env`, so pass secrets there by reference.
 */

export class McpConfigError extends Schema.TaggedError<McpConfigError>()("McpConfigError", {
  file: Schema.String,
  problem: Schema.String
}) {
  override get message() {
    return `${this.file}: ${this.problem}`
  }
}

/** Where a server was configured: the user's file, the project's, or a client of the session (the user's editor). */
export type ServerOrigin = McpServerOrigin

/** A server as configured. `problem` says why it cannot be started as written (e.g. an unset variable). */
export interface ConfiguredServer {
  readonly config: McpServerConfig
  readonly origin: ServerOrigin
  readonly problem?: string
  /** `disabled: true`: listed (`mcp list` shows it), never started; it still overrides an entry of the same name. */
  readonly disabled?: true
}

export const userConfigFile = (userConfigDir: string) => join(userConfigDir, "mcp.json")
export const projectConfigFile = (cwd: string) => join(cwd, ".custom-agent", "mcp.json")

const StringMap = Schema.Record({ key: Schema.String, value: Schema.String })
const Millis = Schema.Number.pipe(Schema.int(), Schema.positive())
const common = {
  timeout: Schema.optional(Millis),
  startupTimeout: Schema.optional(Millis),
  disabled: Schema.optional(Schema.Boolean)
}

const StdioEntry = Schema.Struct({
  type: Schema.optional(Schema.Literal("stdio")),
  command: Schema.String.pipe(Schema.minLength(1)),
  args: Schema.optional(Schema.Array(Schema.String)),
  env: Schema.optional(StringMap),
  cwd: Schema.optional(Schema.String.pipe(Schema.minLength(1))),
  ...common
})

const isHttpUrl = (text: string) => {
  try {
    const url = new URL(text)
    return url.protocol === "http:" || url.protocol === "https:"
  } catch {
    return false
  }
}

const HttpEntry = Schema.Struct({
  type: Schema.optional(Schema.Literal("http", "streamable-http")),
  url: Schema.String.pipe(Schema.filter(isHttpUrl, { message: () => "must be an http:// or https:// URL" })),
  headers: Schema.optional(StringMap),
  ...common
})

const ConfigFile = Schema.Struct({
  mcpServers: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
})

const decodeFile = Schema.decodeUnknownEither(ConfigFile)
const decodeStdio = Schema.decodeUnknownEither(StdioEntry)
const decodeHttp = Schema.decodeUnknownEither(HttpEntry)

const describe = (prefix: string, error: ParseResult.ParseError): ReadonlyArray<string> =>
  ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) => `${[prefix, ...issue.path.map(String)].join(".")}: ${issue.message}`)

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g

/**
 * A project's values as written: a reference to a variable is refused, never looked up, so a
 * repository cannot send the user's secrets to a server it names.
 */
const refuseVariables = (values: Readonly<Record<string, string>>, field: string): Either.Either<Record<string, string>, string> => {
  const named = Object.entries(values).flatMap(([key, value]) =>
    [...value.matchAll(VARIABLE)].map((match) => `${field}.${key} names \${${match[1] ?? ""}}`)
  )
  return named.length === 0
    ? Either.right({ ...values })
    : Either.left(
        `${named.join("; ")}: a project's mcp.json cannot use environment variables (they are not expanded); configure this server in your own mcp.json to pass them`
      )
}

/** Expands `${VAR}` and `${VAR:-fallback}` in each value; the unset variables are reported, not guessed. */
const expand = (
  values: Readonly<Record<string, string>>,
  field: string,
  env: NodeJS.ProcessEnv
): Either.Either<Record<string, string>, string> => {
  const out: Record<string, string> = {}
  const unset: Array<string> = []
  for (const [key, value] of Object.entries(values)) {
    out[key] = value.replace(VARIABLE, (whole, name: string, fallback: string | undefined) => {
      const found = env[name]
      if (fallback !== undefined) return found === undefined || found === "" ? fallback : found
      if (found !== undefined) return found
      unset.push(`${field}.${key} uses \${${name}}, which is not set`)
      return whole
    })
  }
  return unset.length === 0 ? Either.right(out) : Either.left(unset.join("; "))
}

const timeouts = (entry: { readonly timeout?: number | undefined; readonly startupTimeout?: number | undefined }) => ({
  ...(entry.timeout === undefined ? {} : { timeoutMs: entry.timeout }),
  ...(entry.startupTimeout === undefined ? {} : { startupTimeoutMs: entry.startupTimeout })
})

const disabledIf = (entry: { readonly disabled?: boolean | undefined }) => (entry.disabled === true ? { disabled: true as const } : {})

type Decoded = { readonly server?: ConfiguredServer; readonly problems: ReadonlyArray<string> }

/** The values of `env` or `headers` as the server gets them: expanded from the user's file, refused with a reference from any other. */
const valuesOf = (values: Readonly<Record<string, string>>, field: string, origin: ServerOrigin, env: NodeJS.ProcessEnv) =>
  origin === "user" ? expand(values, field, env) : refuseVariables(values, field)

const decodeEntry = (name: string, raw: unknown, origin: ServerOrigin, env: NodeJS.ProcessEnv): Decoded => {
  const at = `mcpServers.${name}`
  if (!isRecord(raw)) return { problems: [`${at}: expected an object`] }
  const type = raw["type"]
  const stdio = type === "stdio" || (type === undefined && "command" in raw)
  const http = type === "http" || type === "streamable-http" || (type === undefined && "url" in raw)
  if (type !== undefined && !stdio && !http) {
    return { problems: [`${at}.type: ${JSON.stringify(type)} is not supported (use "stdio", "http" or "streamable-http")`] }
  }
  if (stdio) {
    const decoded = decodeStdio(raw)
    if (Either.isLeft(decoded)) return { problems: describe(at, decoded.left) }
    const entry = decoded.right
    // Not expanded: a disabled server's unset variables are no problem.
    const env_ = entry.disabled === true ? Either.right(entry.env ?? {}) : valuesOf(entry.env ?? {}, "env", origin, env)
    const config: McpServerConfig = {
      name,
      command: entry.command,
      args: entry.args ?? [],
      env: Either.getOrElse(env_, () => entry.env ?? {}),
      ...(entry.cwd === undefined ? {} : { cwd: entry.cwd }),
      ...timeouts(entry)
    }
    return { server: { config, origin, ...disabledIf(entry), ...(Either.isLeft(env_) ? { problem: env_.left } : {}) }, problems: [] }
  }
  if (http) {
    const decoded = decodeHttp(raw)
    if (Either.isLeft(decoded)) return { problems: describe(at, decoded.left) }
    const entry = decoded.right
    const headers = entry.disabled === true ? Either.right(entry.headers ?? {}) : valuesOf(entry.headers ?? {}, "headers", origin, env)
    const config: McpServerConfig = {
      name,
      url: entry.url,
      headers: Either.getOrElse(headers, () => entry.headers ?? {}),
      ...timeouts(entry)
    }
    return { server: { config, origin, ...disabledIf(entry), ...(Either.isLeft(headers) ? { problem: headers.left } : {}) }, problems: [] }
  }
  return { problems: [`${at}: needs "command" (a stdio server) or "url" (a Streamable HTTP server)`] }
}

/** The servers of one parsed file; every problem in it, or none. */
export const parseConfig = (
  file: string,
  json: unknown,
  origin: ServerOrigin,
  env: NodeJS.ProcessEnv = process.env
): Either.Either<ReadonlyArray<ConfiguredServer>, McpConfigError> => {
  const decoded = decodeFile(json)
  if (Either.isLeft(decoded)) return Either.left(new McpConfigError({ file, problem: describe("file", decoded.left).join("; ") }))
  const servers: Array<ConfiguredServer> = []
  const problems: Array<string> = []
  for (const [name, raw] of Object.entries(decoded.right.mcpServers ?? {})) {
    if (name === "") {
      problems.push("mcpServers: a server name must not be empty")
      continue
    }
    const entry = decodeEntry(name, raw, origin, env)
    problems.push(...entry.problems)
    if (entry.server !== undefined) servers.push(entry.server)
  }
  return problems.length === 0 ? Either.right(servers) : Either.left(new McpConfigError({ file, problem: problems.join("; ") }))
}


/** Reads one configuration file; a missing file has no servers, a malformed one is an error naming it. */
export const readConfigFile = (
  file: string,
  origin: ServerOrigin,
  env: NodeJS.ProcessEnv = process.env
): Effect.Effect<ReadonlyArray<ConfiguredServer>, McpConfigError> =>
  readOptionalJson(file).pipe(
    Effect.mapError(({ problem }) => new McpConfigError({ file, problem })),
    Effect.flatMap(Option.match({ onNone: () => Effect.succeed([]), onSome: (json) => parseConfig(file, json, origin, env) }))
  )

/** Servers by name: later groups override earlier entries of the same name (only ever among the user's own: file, then client). */
export const mergeServers = (...groups: ReadonlyArray<ReadonlyArray<ConfiguredServer>>): ReadonlyArray<ConfiguredServer> => {
  const byName = new Map<string, ConfiguredServer>()
  for (const group of groups) for (const server of group) byName.set(server.config.name, server)
  return [...byName.values()]
}

export interface ConfigLocations {
  readonly userConfigDir: string
  /** The project directory; without it only the user's file is read. */
  readonly cwd?: string
  readonly env?: NodeJS.ProcessEnv
}

/** The configuration files that apply to a directory, the user's first; a project's entries never override the user's (see `admitServers`). */
export const configFiles = (locations: ConfigLocations): ReadonlyArray<{ readonly file: string; readonly origin: ServerOrigin }> => [
  { file: userConfigFile(locations.userConfigDir), origin: "user" },
  ...(locations.cwd === undefined ? [] : [{ file: projectConfigFile(locations.cwd), origin: "project" as const }])
]

/**
 * Every configured server of a directory, the user's then the project's, each once per file
 * (a project's entry with a user's entry's name is listed too: which of them a session
 * starts is `admitServers`' decision); fails on the first malformed file.
 */
export const loadConfiguredServers = (locations: ConfigLocations): Effect.Effect<ReadonlyArray<ConfiguredServer>, McpConfigError> =>
  Effect.forEach(configFiles(locations), ({ file, origin }) => readConfigFile(file, origin, locations.env)).pipe(
    Effect.map((groups) => groups.flat())
  )
