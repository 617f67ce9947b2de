import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { listenFailure, parseListenHost } from "../../src/cli/listen-host.js"

describe("serve --host", () => {
  it("takes IPv6 addresses with or without brackets, names and IPv4 addresses", () => {
    expect(parseListenHost("[::1]")).toEqual(Either.right({ bind: "::1", url: "[::1]", loopback: true }))
    expect(parseListenHost("::1")).toEqual(Either.right({ bind: "::1", url: "[::1]", loopback: true }))
    expect(parseListenHost("127.0.0.2")).toEqual(Either.right({ bind: "127.0.0.2", url: "127.0.0.2", loopback: true }))
    expect(parseListenHost("localhost")).toEqual(Either.right({ bind: "localhost", url: "localhost", loopback: true }))
    expect(parseListenHost("0.0.0.0")).toEqual(Either.right({ bind: "0.0.0.0", url: "0.0.0.0", loopback: false }))
    expect(parseListenHost("[fd00::2]")).toEqual(Either.right({ bind: "fd00::2", url: "[fd00::2]", loopback: false }))
    expect(parseListenHost("box.lan")).toEqual(Either.right({ bind: "box.lan", url: "box.lan", loopback: false }))
  })

  it("refuses what is not an address", () => {
    expect(parseListenHost("[box.lan]")).toEqual(Either.left("--host [box.lan]: only an IPv6 address goes in brackets"))
    expect(Either.isLeft(parseListenHost(""))).toBe(true)
    expect(Either.isLeft(parseListenHost("http://x"))).toBe(true)
  })

  it("a listen failure is one line: address, port, code and meaning", () => {
    const host = { bind: "::1", url: "[::1]", loopback: true }
    const inUse = Object.assign(new Error("listen EADDRINUSE: address already in use ::1:7420"), { code: "EADDRINUSE" })
    expect(listenFailure(host, 7420, inUse)).toBe("cannot listen on [::1]:7420: EADDRINUSE (the port is already in use)")
    const odd = Object.assign(new Error("something else"), { code: "EWHATEVER" })
    expect(listenFailure(host, 1, odd)).toBe("cannot listen on [::1]:1: EWHATEVER (something else)")
    expect(listenFailure(host, 1, new Error("no code"))).toBe("cannot listen on [::1]:1: no code")
  })
})
