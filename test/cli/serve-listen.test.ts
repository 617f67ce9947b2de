import { afterAll, describe, expect, it } from "vitest"
import { request } from "node:http"
import { createServer, type Server } from "node:net"
import { writeFileSync } from "node:fs"
import { networkInterfaces } from "node:os"
import { join } from "node:path"
import { runCli, startServer, stop } from "../support/cli.js"
import { makeTemp } from "../support/temp-dirs.js"

const temp = makeTemp()
afterAll(temp.cleanup)

/** GET / on the server at `port` of 127.0.0.1 with this Host header: the status. */
const statusFor = (port: number, host: string) =>
  new Promise<number>((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: "/", headers: { host } }, (res) => {
      res.resume()
      resolve(res.statusCode ?? 0)
    })
    req.on("error", reject)
    req.end()
  })

const portOf = (url: string) => Number(new URL(url).port)

describe("serve: where it listens", () => {
  it("takes an IPv6 address with or without brackets, and answers there", { timeout: 60_000 }, async () => {
    for (const host of ["[::1]", "::1"]) {
      const server = await startServer(["--host", host, "--data-dir", temp.dir("serve-home-")])
      try {
        expect(server.url).toMatch(/^http:\/\/\[::1\]:\d+$/)
        const list = await runCli(["sessions", "list", "--server", server.url], { env: { CUSTOM_AGENT_TOKEN: server.token } })
        expect(list.code, list.stderr).toBe(0)
        expect(list.stdout).toContain("no sessions yet")
      } finally {
        await stop(server.child)
      }
    }
  })

  it("a port in use is one clear line naming the address, the port and the reason, exit 1", async () => {
    const taken = await new Promise<Server>((resolve) => {
      const server = createServer()
      server.listen(0, "127.0.0.1", () => resolve(server))
    })
    try {
      const address = taken.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      const result = await runCli(["serve", "--model", "scripted", "--port", String(port), "--data-dir", temp.dir("serve-home-")])
      expect(result.code).toBe(1)
      expect(result.stderr).toBe(`custom-agent: cannot listen on 127.0.0.1:${port}: EADDRINUSE (the port is already in use)\n`)
    } finally {
      taken.close()
    }
  })

  it("off loopback, a token given explicitly must have 16 characters or more (exit 2)", async () => {
    const file = join(temp.dir("serve-token-"), "token")
    writeFileSync(file, "a\n", { mode: 0o600 })
    const short = await runCli(["serve", "--host", "0.0.0.0", "--token-file", file, "--port", "0"])
    expect(short.code).toBe(2)
    expect(short.stderr).toBe(
      "custom-agent serve: --token-file is too short: serving on 0.0.0.0 (not loopback) takes a token of at least 16 characters (this one has 1), e.g. `openssl rand -base64 24`\n(see custom-agent serve --help)\n"
    )
    const fromEnv = await runCli(["serve", "--host", "0.0.0.0", "--port", "0"], { env: { CUSTOM_AGENT_TOKEN: "0123456789abcde" } })
    expect(fromEnv.code).toBe(2)
    expect(fromEnv.stderr).toContain("CUSTOM_AGENT_TOKEN is too short")
    const brackets = await runCli(["serve", "--host", "[box.lan]"])
    expect(brackets.code).toBe(2)
    expect(brackets.stderr).toBe("custom-agent serve: --host [box.lan]: only an IPv6 address goes in brackets\n(see custom-agent serve --help)\n")
  })

  it("on 0.0.0.0 it answers to its own LAN address and each --allowed-host, and refuses other names", { timeout: 60_000 }, async () => {
    const server = await startServer(["--host", "0.0.0.0", "--allowed-host", "agent.lan", "--data-dir", temp.dir("serve-home-")], {
      env: { CUSTOM_AGENT_TOKEN: "0123456789abcdef" }
    })
    try {
      const port = portOf(server.url)
      const lan = Object.values(networkInterfaces())
        .flatMap((addresses) => addresses ?? [])
        .find((a) => a.family === "IPv4" && !a.internal)
      if (lan !== undefined) expect(await statusFor(port, `${lan.address}:${port}`)).toBe(200)
      expect(await statusFor(port, `agent.lan:${port}`)).toBe(200)
      expect(await statusFor(port, `evil.example:${port}`)).toBe(403)
    } finally {
      await stop(server.child)
    }
  })
})
