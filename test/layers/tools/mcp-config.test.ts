import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import {
  loadConfiguredServers,
  McpConfigError,
  parseConfig,
  projectConfigFile,
  readConfigFile,
  userConfigFile
} from "../../../src/layers/tools/mcp-config.js"
import { modelToolName } from "../../../src/layers/tools/mcp-names.js"
import { makeHub, tempDir, testServer } from "../../support/mcp-fixtures.js"

const write = (file: string, content: unknown) => {
  mkdirSync(join(file, ".."), { recursive: true })
  writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content))
}

const problemOf = (json: unknown, env: NodeJS.ProcessEnv = {}) => {
  const parsed = parseConfig("mcp.json", json, "project", env)
  return Either.isLeft(parsed) ? parsed.left.problem : "no problem"
}

describe("MCP configuration", () => {
  it("reads the mcpServers shape: stdio by command, HTTP by url or type; unknown fields are ignored, disabled entries kept as disabled", () => {
    const parsed = parseConfig(
      "mcp.json",
      {
        $schema: "whatever",
        mcpServers: {
          fs: { command: "npx", args: ["-y", "server"], env: { A: "1" }, cwd: "tools", timeout: 5000, alwaysAllow: ["x"] },
          typed: { type: "stdio", command: "srv" },
          remote: { url: "https://example.com/mcp", headers: { "X-Key": "k" }, startupTimeout: 1000 },
          streamable: { type: "streamable-http", url: "http://localhost:1234/mcp" },
          off: { command: "never", disabled: true }
        }
      },
      "user",
      {}
    )
    expect(parsed).toEqual(
      Either.right([
        { origin: "user", config: { name: "fs", command: "npx", args: ["-y", "server"], env: { A: "1" }, cwd: "tools", timeoutMs: 5000 } },
        { origin: "user", config: { name: "typed", command: "srv", args: [], env: {} } },
        { origin: "user", config: { name: "remote", url: "https://example.com/mcp", headers: { "X-Key": "k" }, startupTimeoutMs: 1000 } },
        { origin: "user", config: { name: "streamable", url: "http://localhost:1234/mcp", headers: {} } },
        { origin: "user", config: { name: "off", command: "never", args: [], env: {} }, disabled: true }
      ])
    )
    expect(parseConfig("mcp.json", {}, "user", {})).toEqual(Either.right([]))
  })

  it("expands ${VAR} and ${VAR:-fallback} in env and headers of the user's file; an unset variable is the server's problem, not the file's", () => {
    const env = { TOKEN: "t0k3n", EMPTY: "" }
    const parsed = parseConfig(
      "mcp.json",
      {
        mcpServers: {
          a: { command: "x", env: { KEY: "${TOKEN}", MIXED: "pre-${TOKEN}-post", DEFAULTED: "${EMPTY:-dflt}", KEPT: "${TOKEN:-dflt}", BLANK: "${EMPTY}", LITERAL: "$TOKEN" } },
          b: { url: "https://example.com", headers: { Authorization: "Bearer ${TOKEN}" } },
          c: { command: "x", env: { KEY: "${MISSING}" } }
        }
      },
      "user",
      env
    )
    if (Either.isLeft(parsed)) throw new Error(parsed.left.message)
    const [a, b, c] = parsed.right
    expect(a?.config).toMatchObject({
      env: { KEY: "t0k3n", MIXED: "pre-t0k3n-post", DEFAULTED: "dflt", KEPT: "t0k3n", BLANK: "", LITERAL: "$TOKEN" }
    })
    expect(a?.problem).toBeUndefined()
    expect(b?.config).toMatchObject({ headers: { Authorization: "Bearer t0k3n" } })
    expect(c?.problem).toBe("env.KEY uses ${MISSING}, which is not set")
  })

  it("a project's file expands nothing: a server whose env or headers name a variable keeps them as written and does not start, saying why", () => {
    const env = { TOKEN: "t0k3n" }
    const parsed = parseConfig(
      "mcp.json",
      {
        mcpServers: {
          a: { command: "x", env: { KEY: "${TOKEN}", LITERAL: "$TOKEN" } },
          b: { url: "https://example.com", headers: { Authorization: "Bearer ${TOKEN:-none}", Other: "${HOME}" } },
          c: { command: "x", args: ["${TOKEN}"], env: { PLAIN: "value" } },
          d: { command: "x", env: { KEY: "${TOKEN}" }, disabled: true }
        }
      },
      "project",
      env
    )
    if (Either.isLeft(parsed)) throw new Error(parsed.left.message)
    const [a, b, c, d] = parsed.right
    expect(JSON.stringify(parsed.right)).not.toContain("t0k3n")
    expect(a?.config).toMatchObject({ env: { KEY: "${TOKEN}", LITERAL: "$TOKEN" } })
    expect(a?.problem).toBe(
      "env.KEY names ${TOKEN}: a project's mcp.json cannot use environment variables (they are not expanded); configure this server in your own mcp.json to pass them"
    )
    expect(b?.config).toMatchObject({ headers: { Authorization: "Bearer ${TOKEN:-none}", Other: "${HOME}" } })
    expect(b?.problem).toMatch(/^headers\.Authorization names \$\{TOKEN\}; headers\.Other names \$\{HOME\}: a project's mcp\.json cannot use/)
    // Arguments were never expanded: they stay as written, and the server is fine.
    expect(c?.config).toMatchObject({ args: ["${TOKEN}"], env: { PLAIN: "value" } })
    expect(c?.problem).toBeUndefined()
    expect(d?.problem).toBeUndefined()
  })

  it("a malformed entry is a typed error naming the file and every problem", () => {
    expect(problemOf({ mcpServers: { a: { command: "" } } })).toMatch(/^mcpServers\.a\.command: /)
    expect(problemOf({ mcpServers: { a: { args: ["x"] } } })).toBe('mcpServers.a: needs "command" (a stdio server) or "url" (a Streamable HTTP server)')
    expect(problemOf({ mcpServers: { a: { type: "sse", url: "https://x" } } })).toBe(
      'mcpServers.a.type: "sse" is not supported (use "stdio", "http" or "streamable-http")'
    )
    expect(problemOf({ mcpServers: { a: { url: "ftp://x" } } })).toBe("mcpServers.a.url: must be an http:// or https:// URL")
    expect(problemOf({ mcpServers: { a: "npx server" } })).toBe("mcpServers.a: expected an object")
    expect(problemOf({ mcpServers: { a: { command: "x", args: "-y" }, b: { command: "y", timeout: -1 } } })).toMatch(
      /^mcpServers\.a\.args: .+; mcpServers\.b\.timeout: /
    )
    expect(problemOf({ mcpServers: [] })).toMatch(/^file\.mcpServers: /)
  })

  it.effect("files: a missing one has no servers, bad JSON names the file, each file's entries are listed with their origin", () =>
    Effect.gen(function* () {
      const userDir = yield* tempDir("mcp-conf-user-")
      const project = yield* tempDir("mcp-conf-project-")
      expect(yield* loadConfiguredServers({ userConfigDir: userDir, cwd: project })).toEqual([])

      write(userConfigFile(userDir), { mcpServers: { shared: { command: "user-version" }, mine: { command: "mine" } } })
      write(projectConfigFile(project), { mcpServers: { shared: { url: "https://project.example/mcp" }, local: { command: "local" } } })
      const servers = yield* loadConfiguredServers({ userConfigDir: userDir, cwd: project })
      // Listed as configured: which of them a session starts is the hub's decision (the user's "shared" wins).
      expect(servers.map((s) => [s.config.name, s.origin])).toEqual([
        ["shared", "user"],
        ["mine", "user"],
        ["shared", "project"],
        ["local", "project"]
      ])
      expect(servers[2]?.config).toMatchObject({ url: "https://project.example/mcp" })
      // Without a project directory only the user's file applies.
      expect((yield* loadConfiguredServers({ userConfigDir: userDir })).map((s) => s.config.name)).toEqual(["shared", "mine"])

      write(projectConfigFile(project), "{ mcpServers: ")
      const error = yield* Effect.flip(readConfigFile(projectConfigFile(project), "project"))
      expect(error).toBeInstanceOf(McpConfigError)
      expect(error.file).toBe(projectConfigFile(project))
      expect(error.message).toMatch(new RegExp(`^${projectConfigFile(project)}: not valid JSON \\(`))
      const failed = yield* Effect.flip(loadConfiguredServers({ userConfigDir: userDir, cwd: project }))
      expect(failed.file).toBe(projectConfigFile(project))
    }).pipe(Effect.scoped))

  it("tool names: mcp__<server>__<tool>, sanitized, at most 64 characters, distinct, and a function of the two names alone", () => {
    expect(modelToolName("fs", "read_file")).toBe("mcp__fs__read_file")
    expect(modelToolName("fs", "list-dir")).toBe("mcp__fs__list-dir")
    expect(modelToolName("my server", "read_file")).toBe("mcp__my_server__read_file")
    const dotted = modelToolName("s", "get.item")
    expect(dotted).toMatch(/^mcp__s__get_item_[0-9a-f]{8}$/)
    expect(dotted).not.toBe(modelToolName("s", "get_item"))
    expect(modelToolName("s", "get.item")).toBe(dotted)
    const long = modelToolName("s", "x".repeat(80))
    expect(long).toHaveLength(64)
    expect(long).toMatch(/^mcp__s__x+_[0-9a-f]{8}$/)
    expect(long).not.toBe(modelToolName("s", "x".repeat(81)))
  })

  it.live("a session's servers come from both files and configureSession; a malformed file is noticed and skipped", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const userConfigDir = yield* tempDir("mcp-conf-user-")
        const project = yield* tempDir("mcp-conf-project-")
        const server = testServer("unused")
        if (!("command" in server)) return yield* Effect.dieMessage("a stdio server")
        write(userConfigFile(userConfigDir), { mcpServers: { fromUser: { command: server.command, args: server.args } } })
        write(projectConfigFile(project), { mcpServers: { broken: { command: 42 } } })
        const hub = yield* makeHub({ userConfigDir })
        yield* hub.configureSession("s1", project, [testServer("fromSession")])
        expect((yield* hub.status("s1")).map((s) => [s.name, s.state])).toEqual([
          ["fromUser", "ready"],
          ["fromSession", "ready"]
        ])
        const notices = yield* hub.drainNotices("s1")
        expect(notices[0]).toEqual({
          server: projectConfigFile(project),
          state: "failed",
          message: "mcpServers.broken.command: Expected string, actual 42; its MCP servers are left out"
        })
      })
    ))
})
