import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/sdk/types.js"
import type { ToolResult } from "../../domain/tools.js"
import { formatBytes } from "./format-bytes.js"
import { errorResult, okResult } from "./tool-results.js"

export type CallToolAnswer = Awaited<ReturnType<Client["callTool"]>>

/** The SDK parsed the answer already; only the legacy shape lacks a `content` list. */
const hasContent = (answer: CallToolAnswer): answer is CallToolResult => Array.isArray(answer["content"])

/** Bytes a base64 payload decodes to, without decoding it. */
const base64Bytes = (data: string) => {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding)
}

/** Text stays text; what a model cannot read here (images, audio, binary resources) is described in a line. */
const blockText = (block: ContentBlock): string => {
  switch (block.type) {
    case "text":
      return block.text
    case "image":
      return `[image: ${block.mimeType}, ${formatBytes(base64Bytes(block.data))}]`
    case "audio":
      return `[audio: ${block.mimeType}, ${formatBytes(base64Bytes(block.data))}]`
    case "resource": {
      const { resource } = block
      const mime = resource.mimeType === undefined ? "" : ` (${resource.mimeType})`
      if ("text" in resource) return `[resource ${resource.uri}${mime}]\n${resource.text}`
      return `[resource ${resource.uri}${mime}: binary, ${formatBytes(base64Bytes(resource.blob))}]`
    }
    case "resource_link":
      return `[resource link: ${block.name} ${block.uri}${block.mimeType === undefined ? "" : ` (${block.mimeType})`}]`
  }
}

/**
 * A tools/call answer as a ToolResult: text blocks joined, other content summarized, the
 * structured content (when there is some) kept as JSON data beside the text.
 */
export const toToolResult = (answer: CallToolAnswer): ToolResult => {
  if (!hasContent(answer)) {
    // A server on the 2024-10-07 protocol answers with a bare `toolResult`.
    return okResult(JSON.stringify(answer.toolResult, null, 2) ?? "(no output)")
  }
  const structured = answer.structuredContent
  const data = structured === undefined ? undefined : { _tag: "json" as const, value: structured }
  const text = answer.content.map(blockText).join("\n")
  const output = text !== "" ? text : structured !== undefined ? JSON.stringify(structured, null, 2) : "(no output)"
  return answer.isError === true ? errorResult(output, data) : okResult(output, data)
}
