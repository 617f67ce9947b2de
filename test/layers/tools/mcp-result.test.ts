import { describe, expect, it } from "@effect/vitest"
import { toToolResult } from "../../../src/layers/tools/mcp-result.js"

describe("MCP tool results", () => {
  it("joins text, describes what is not text, and keeps structured content as JSON data", () => {
    const png = Buffer.alloc(2048).toString("base64")
    expect(
      toToolResult({
        content: [
          { type: "text", text: "first" },
          { type: "image", data: png, mimeType: "image/png" },
          { type: "audio", data: "AAAA", mimeType: "audio/wav" },
          { type: "resource", resource: { uri: "file:///a.txt", mimeType: "text/plain", text: "inside a" } },
          { type: "resource", resource: { uri: "file:///b.bin", blob: "AAAAAA==" } },
          { type: "resource_link", uri: "file:///c.md", name: "c.md", mimeType: "text/markdown" }
        ],
        structuredContent: { answer: 42 }
      })
    ).toEqual({
      output: [
        "first",
        "[image: image/png, 2.0 KiB]",
        "[audio: audio/wav, 3 bytes]",
        "[resource file:///a.txt (text/plain)]\ninside a",
        "[resource file:///b.bin: binary, 4 bytes]",
        "[resource link: c.md file:///c.md (text/markdown)]"
      ].join("\n"),
      isError: false,
      data: { _tag: "json", value: { answer: 42 } }
    })
  })

  it("an error result stays an error; empty content falls back to the structured content or says so", () => {
    expect(toToolResult({ content: [{ type: "text", text: "no such file" }], isError: true })).toEqual({ output: "no such file", isError: true })
    expect(toToolResult({ content: [], structuredContent: { ok: true } })).toEqual({
      output: '{\n  "ok": true\n}',
      isError: false,
      data: { _tag: "json", value: { ok: true } }
    })
    expect(toToolResult({ content: [] })).toEqual({ output: "(no output)", isError: false })
    expect(toToolResult({ toolResult: { legacy: 1 } })).toEqual({ output: '{\n  "legacy": 1\n}', isError: false })
  })
})
