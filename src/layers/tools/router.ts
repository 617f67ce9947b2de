import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { ToolDefinition } from "../../domain/model.js"
import { type Tool, ToolCallRejected, ToolRouter, type ToolRouterShape, type ToolScope, type ToolSource } from "../../services/ToolRouter.js"

/**
 * Merges tool sources in order. Names are unique: when two sources offer the same name the
 * earlier source keeps it (sources namespace their tools, e.g. `mcp__<server>__<tool>`,
 * so this only guards against a misconfiguration, and it is logged).
 */
export const make = (sources: ReadonlyArray<ToolSource>): ToolRouterShape => {
  const merged = (scope: ToolScope): Effect.Effect<ReadonlyMap<string, Tool>> =>
    Effect.gen(function* () {
      const byName = new Map<string, Tool>()
      for (const source of sources) {
        for (const tool of yield* source.tools(scope)) {
          const name = tool.definition.name
          if (byName.has(name)) {
            yield* Effect.logWarning(`tool ${name} from ${source.name} is shadowed by an earlier source`)
            continue
          }
          byName.set(name, tool)
        }
      }
      return byName
    })

  const definitions = (scope: ToolScope): Effect.Effect<ReadonlyArray<ToolDefinition>> =>
    Effect.map(merged(scope), (tools) => [...tools.values()].map((tool) => tool.definition))

  const prepare: ToolRouterShape["prepare"] = (call, ctx) =>
    Effect.gen(function* () {
      const tools = yield* merged({ sessionId: ctx.sessionId, workspaceRoot: ctx.workspaceRoot })
      const tool = tools.get(call.name)
      if (tool === undefined) {
        return yield* new ToolCallRejected({
          toolCallId: call.toolCallId,
          reason: "unknown_tool",
          message: `Unknown tool "${call.name}". Available tools: ${[...tools.keys()].join(", ") || "none"}.`
        })
      }
      return yield* tool.prepare(call.input, ctx).pipe(
        Effect.mapError((error) =>
          new ToolCallRejected({
            toolCallId: call.toolCallId,
            reason: "invalid_input",
            message: `Invalid input for ${call.name}: ${error.message}`
, cause: error          })
        )
      )
    })

  return { definitions, prepare }
}

export const layer = (sources: ReadonlyArray<ToolSource>) => Layer.succeed(ToolRouter, make(sources))

/** A fixed list of tools as a source. */
export const staticSource = (name: string, tools: ReadonlyArray<Tool>): ToolSource => ({
  name,
  tools: () => Effect.succeed(tools)
})
