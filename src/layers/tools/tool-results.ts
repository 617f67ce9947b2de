import type { ToolResult, ToolResultData } from "../../domain/tools.js"

export const okResult = (output: string, data?: ToolResultData): ToolResult =>
  data === undefined ? { output, isError: false } : { output, isError: false, data }

export const errorResult = (output: string, data?: ToolResultData): ToolResult =>
  data === undefined ? { output, isError: true } : { output, isError: true, data }
