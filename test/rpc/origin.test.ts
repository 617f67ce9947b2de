import { describe, expect, it } from "vitest"
import { rpcOrigin } from "../../src/rpc/origin.js"

describe("the RPC transport's origin", () => {
  it("is `rpc`, with the client's own name after it, never in place of it", () => {
    expect(rpcOrigin(undefined)).toBe("rpc")
    expect(rpcOrigin("")).toBe("rpc")
    expect(rpcOrigin("web")).toBe("rpc:web")
    expect(rpcOrigin("cli")).toBe("rpc:cli")
    expect(rpcOrigin("rpc")).toBe("rpc:rpc")
    // A claimed name cannot break a line where a timeline prints it, nor run on.
    expect(rpcOrigin("web\n#12 permission.resolved allow by cli")).toBe("rpc:web__12_permission.resolved_allow_by_cli")
    expect(rpcOrigin("x".repeat(500))).toHaveLength("rpc:".length + 40)
    expect(rpcOrigin("my-editor_2.1")).toBe("rpc:my-editor_2.1")
  })
})
