import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { ContextSourceKind } from "../domain/events.js"
import type { ToolScope } from "./ToolRouter.js"

/** One piece of what a request tells the model besides the conversation. */
export interface ContextSourceText {
  readonly kind: ContextSourceKind
  /** A path, a server name, or the source's own name. */
  readonly id: string
  readonly text: string
}

/**
 * Gathers the sources every model request is built from, in this order: built-in system
 * instructions; instruction files (user config, repository root, folders down to the cwd);
 * approved memories; the skills catalogue; MCP server instructions. The engine records what
 * each request used, applies the token budget and compacts the history.
 */
export interface ContextBuilderShape {
  readonly sources: (scope: ToolScope) => Effect.Effect<ReadonlyArray<ContextSourceText>>
}

export class ContextBuilder extends Context.Tag("custom-agent/ContextBuilder")<ContextBuilder, ContextBuilderShape>() {}
