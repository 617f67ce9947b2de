import type { ToolDefinition } from "../../domain/model.js"

/**
 * A tool's JSON Schema as providers take it: an object schema without the `$schema`
 * dialect marker (which effect's JSONSchema adds and some servers reject).
 */
export const toolParameters = (tool: ToolDefinition): { readonly type: "object"; readonly [key: string]: unknown } => {
  const { $schema: _dialect, ...schema } = tool.inputSchema
  return { ...schema, type: "object" }
}
