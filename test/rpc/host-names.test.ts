import { NodeHttpServer } from "@effect/platform-node"
import { afterAll, describe, expect, it, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { request as httpRequest } from "node:http"
import { networkInterfaces } from "node:os"
import { HttpServer } from "@effect/platform"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import { acceptedHosts } from "../../src/rpc/host-names.js"
import { serverLayer } from "../../src/rpc/server.js"
import { hostTestLayer } from "../support/host-harness.js"
import { makeWebRoot } from "../support/rpc-test-client.js"

describe("the Host names a server accepts", () => {
  const machine = ["127.0.0.1", "::1", "192.0.2.2", "fd00::2"]

  it("loopback names and the bound address, with the server's port", () => {
    expect(acceptedHosts({ boundHost: "192.168.1.5", port: 7420, extra: [], interfaceAddresses: machine })).toEqual([
      "localhost:7420",
      "127.0.0.1:7420",
      "[::1]:7420",
      "192.168.1.5:7420"
    ])
    // An IPv6 address, bracketed or not, is named in brackets.
    for (const boundHost of ["::1", "[::1]"]) {
      expect(acceptedHosts({ boundHost, port: 1, extra: [], interfaceAddresses: machine })).toEqual(["localhost:1", "127.0.0.1:1", "[::1]:1"])
    }
  })

  it("on a wildcard, each of this machine's addresses (IPv4 ones on 0.0.0.0, all on ::)", () => {
    const v4 = acceptedHosts({ boundHost: "0.0.0.0", port: 7420, extra: [], interfaceAddresses: machine })
    expect(v4).toContain("192.0.2.2:7420")
    expect(v4).not.toContain("[fd00::2]:7420")
    const all = acceptedHosts({ boundHost: "::", port: 7420, extra: [], interfaceAddresses: machine })
    expect(all).toContain("192.0.2.2:7420")
    expect(all).toContain("[fd00::2]:7420")
  })

  it("--allowed-host: a name with the port and bare (as a proxy forwards it), a NAME:PORT exactly, lower-cased", () => {
    const hosts = acceptedHosts({ boundHost: "0.0.0.0", port: 7420, extra: ["Agent.LAN", "proxy.example:8443", "fe80::1"], interfaceAddresses: [] })
    expect(hosts).toEqual(expect.arrayContaining(["agent.lan:7420", "agent.lan", "proxy.example:8443", "[fe80::1]:7420"]))
    expect(hosts).not.toContain("proxy.example:7420")
  })

  it("on port 80, names without a port too, as browsers send them", () => {
    expect(acceptedHosts({ boundHost: "127.0.0.1", port: 80, extra: [], interfaceAddresses: [] })).toContain("localhost")
  })
})

const token = "test-token-hosts-0123456789"
const web = makeWebRoot()
afterAll(web.remove)

// Bound (as far as the guard knows) to every address, with one more name allowed.
const Server = serverLayer({ token, webRoot: web.dir, boundHost: "0.0.0.0", allowedHosts: ["agent.lan"] }).pipe(
  Layer.provide(hostTestLayer(MemoryStore.layer)),
  Layer.provideMerge(NodeHttpServer.layerTest)
)

/** GET / with this Host header (and Origin, if given): the status. */
const getWith = (host: string, origin?: string) =>
  Effect.flatMap(HttpServer.HttpServer, (server) =>
    Effect.async<number, Error>((resume) => {
      const port = server.address._tag === "TcpAddress" ? server.address.port : 0
      const req = httpRequest({ host: "127.0.0.1", port, path: "/", headers: { host: host.replace("PORT", String(port)), ...(origin === undefined ? {} : { origin: origin.replace("PORT", String(port)) }) } })
      req.on("response", (res) => {
        res.resume()
        resume(Effect.succeed(res.statusCode ?? 0))
      })
      req.on("error", (error) => resume(Effect.fail(error)))
      req.end()
    })
  )

layer(Server, { timeout: 30_000, excludeTestServices: true })("the guard on a server bound to 0.0.0.0", (it) => {
  it.effect("accepts its own LAN address and an allowed name, refuses any other (DNS rebinding)", () =>
    Effect.gen(function* () {
      const lan = Object.values(networkInterfaces())
        .flatMap((addresses) => addresses ?? [])
        .find((a) => a.family === "IPv4" && !a.internal)
      if (lan !== undefined) expect(yield* getWith(`${lan.address}:PORT`)).toBe(200)
      expect(yield* getWith("127.0.0.1:PORT")).toBe(200)
      expect(yield* getWith("agent.lan:PORT")).toBe(200)
      expect(yield* getWith("agent.lan:PORT", "http://agent.lan:PORT")).toBe(200)
      expect(yield* getWith("agent.lan", "https://agent.lan")).toBe(200)
      expect(yield* getWith("evil.example:PORT")).toBe(403)
      expect(yield* getWith("agent.lan:PORT", "http://evil.example:PORT")).toBe(403)
    }))
})
