import { describe, expect, it } from "vitest"
import { rpcOrigin } from "../../src/rpc/origin.js"

describe("the RPC transport's origin", () => {
  it("is `rpc`, with the client's own name after it, never in place of it", () => {
    expect(rpcOrigin(undefined)).toBe("rpc")
    expect(rpcOrigin("")).toBe("rpc")
    expect(rpcOrigin("web")).toBe("rpc:web")
    expect(rpcOrigin("cli")).toBe("rpc:cli")
    expect(rpcOrigin("rpc")).toBe("rpc:rpc")
  })
})
