import type { ToolDefinition } from "../domain/model.js"
import { wrap } from "./wrap.js"
import { jsonText, type TerminalText } from "./terminal-text.js"

const indent = (text: string, prefix: string) =>
  text
    .split("\n")
    .map((line) => `${prefix}${line}`)
    .join("\n")

const isScalar = (value: unknown) => value === null || typeof value !== "object"

/** JSON over several lines, as `JSON.stringify(value, null, 2)`, but a list of plain values stays on one line (`"required": ["path"]`). */
export const readableJson = (value: unknown, indent = ""): string => {
  const inner = `${indent}  `
  if (Array.isArray(value)) {
    if (value.every(isScalar)) return JSON.stringify(value)
    return `[\n${value.map((item: unknown) => inner + readableJson(item, inner)).join(",\n")}\n${indent}]`
  }
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value)
    if (entries.length === 0) return "{}"
    return `{\n${entries.map(([key, item]) => `${inner}${JSON.stringify(key)}: ${readableJson(item, inner)}`).join(",\n")}\n${indent}}`
  }
  return JSON.stringify(value) ?? "null"
}

/** Each tool as the model sees it: its name, its description wrapped to `width`, and its input's JSON Schema. */
export const formatTools = (tools: ReadonlyArray<ToolDefinition>, width: number): string =>
  tools
    .map((tool) => {
      const description = wrap(tool.description, width - 2).map((line) => `  ${line}`)
      return [tool.name, ...description, "  input schema:", indent(readableJson(tool.inputSchema), "    ")].join("\n") + "\n"
    })
    .join("\n")

/** The same, for programs: one JSON array of `{ name, description, inputSchema }`. */
export const toolsJson = (tools: ReadonlyArray<ToolDefinition>): TerminalText =>
  jsonText(`${JSON.stringify(
    tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
    null,
    2
  )}\n`)
