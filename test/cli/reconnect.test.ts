import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, writeFileSync } from "node:fs"
import { createServer, type Socket, connect } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { AgentClient, clientLayer } from "../../src/rpc/client.js"
import { assertBuilt, cliPath, startServer, stop } from "../support/cli.js"

/**
 * A TCP proxy in front of the server whose connections the test can cut, as a flaky network
 * or an idle-closing proxy would. It names the server's own address in the Host header, which
 * the server's DNS-rebinding guard checks.
 */
const cuttableProxy = (serverPort: number) =>
  new Promise<{ readonly port: number; readonly cut: () => number; readonly close: () => void }>((resolve) => {
    const sockets = new Set<Socket>()
    let port = 0
    const proxy = createServer((client) => {
      const upstream = connect(serverPort, "127.0.0.1")
      sockets.add(client)
      sockets.add(upstream)
      client.on("data", (chunk: Buffer) => upstream.write(chunk.toString("latin1").replaceAll(`127.0.0.1:${port}`, `127.0.0.1:${serverPort}`), "latin1"))
      upstream.pipe(client)
      const drop = () => {
        client.destroy()
        upstream.destroy()
        sockets.delete(client)
        sockets.delete(upstream)
      }
      client.on("close", drop)
      upstream.on("close", drop)
      client.on("error", drop)
      upstream.on("error", drop)
    })
    proxy.listen(0, "127.0.0.1", () => {
      const address = proxy.address()
      port = typeof address === "object" && address !== null ? address.port : 0
      resolve({
        port,
        cut: () => {
          const cut = sockets.size
          for (const socket of sockets) socket.destroy()
          return cut
        },
        close: () => proxy.close()
      })
    })
  })

const until = async (check: () => boolean, what: () => string, ms = 20_000) => {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting: ${what()}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

describe("run --server on a connection that drops", () => {
  it("reconnects from its last event while it waits for another client's answer, and finishes the turn", { timeout: 90_000 }, async () => {
    assertBuilt()
    const cwd = mkdtempSync(join(tmpdir(), "reconnect-"))
    writeFileSync(
      join(cwd, "script.json"),
      JSON.stringify({ responses: [{ chunks: [{ text: "Writing. " }, { toolCall: { name: "write_file", input: { path: "a.txt", content: "hi\n" } } }] }, "done"] })
    )
    const server = await startServer(["--data-dir", join(cwd, "data"), "--script", "script.json"], { cwd })
    const serverPort = Number(new URL(server.url).port)
    const proxy = await cuttableProxy(serverPort)
    const run = spawn(process.execPath, [cliPath, "run", "--server", `http://127.0.0.1:${proxy.port}`, "write a.txt"], {
      cwd,
      env: { PATH: process.env["PATH"], HOME: process.env["HOME"], NO_COLOR: "1", CUSTOM_AGENT_TOKEN: server.token },
      stdio: ["pipe", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    run.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")))
    run.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
    run.stdin.end()
    const exited = new Promise<number | null>((resolve) => run.on("close", resolve))
    try {
      await until(() => stderr.includes("waiting for a client of the server to answer"), () => stderr)
      expect(proxy.cut()).toBeGreaterThan(0)
      await until(() => stderr.includes("reconnected"), () => stderr)
      expect(stderr).toMatch(/connection to the server lost; reconnecting from event \d+/)

      // Another client (straight to the server) answers; the reconnected run sees the rest.
      await Effect.runPromise(
        Effect.gen(function* () {
          const client = yield* AgentClient
          const [session] = yield* client.ListSessions()
          const view = yield* client.GetSession({ sessionId: session?.sessionId ?? "" })
          const question = view.pendingPermissions[0]
          expect(question?.tool).toBe("write_file")
          yield* client.RespondPermission({
            sessionId: view.sessionId,
            toolCallId: question?.toolCallId ?? "",
            answer: { decision: "allow", scope: "once", by: "user" }
          })
        }).pipe(Effect.provide(clientLayer({ url: server.url, token: server.token })))
      )
      expect(await exited).toBe(0)
      expect(stdout).toContain("done")
      expect(stderr).toContain("✓ write_file a.txt")
      expect(existsSync(join(cwd, "a.txt"))).toBe(true)
    } finally {
      run.kill("SIGKILL")
      proxy.close()
      await stop(server.child)
    }
  })
})
