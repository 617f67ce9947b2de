import type { SseEvent, WireFormat } from "./replay-fixture.js"

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const arrayOf = (value: unknown): ReadonlyArray<unknown> => (Array.isArray(value) ? value : [])

const stringOf = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)

/** The tool result ids a request body carries, in order. */
export const toolResultIdsOf = (format: WireFormat, body: unknown): ReadonlyArray<string> => {
  if (!isRecord(body)) return []
  const ids: Array<string> = []
  if (format === "openai-responses") {
    for (const item of arrayOf(body.input)) {
      const id = isRecord(item) && item.type === "function_call_output" ? stringOf(item.call_id) : undefined
      if (id !== undefined) ids.push(id)
    }
    return ids
  }
  for (const message of arrayOf(body.messages)) {
    if (!isRecord(message)) continue
    if (format === "openai") {
      const id = message.role === "tool" ? stringOf(message.tool_call_id) : undefined
      if (id !== undefined) ids.push(id)
      continue
    }
    for (const block of arrayOf(message.content)) {
      const id = isRecord(block) && block.type === "tool_result" ? stringOf(block.tool_use_id) : undefined
      if (id !== undefined) ids.push(id)
    }
  }
  return ids
}

/** The tool call ids a served stream hands out. */
export const toolCallIdsOf = (format: WireFormat, events: ReadonlyArray<SseEvent>): ReadonlyArray<string> => {
  const ids: Array<string> = []
  for (const event of events) {
    const data = event.data
    if (!isRecord(data)) continue
    if (format === "openai-responses") {
      const item = data.type === "response.output_item.added" ? data.item : undefined
      const id = isRecord(item) && item.type === "function_call" ? stringOf(item.call_id) : undefined
      if (id !== undefined) ids.push(id)
      continue
    }
    if (format === "anthropic") {
      const block = data.type === "content_block_start" ? data.content_block : undefined
      const id = isRecord(block) && block.type === "tool_use" ? stringOf(block.id) : undefined
      if (id !== undefined) ids.push(id)
      continue
    }
    for (const choice of arrayOf(data.choices)) {
      const delta = isRecord(choice) ? choice.delta : undefined
      for (const call of arrayOf(isRecord(delta) ? delta.tool_calls : undefined)) {
        const id = isRecord(call) ? stringOf(call.id) : undefined
        if (id !== undefined) ids.push(id)
      }
    }
  }
  return ids
}
