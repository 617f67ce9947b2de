import { Effect } from "effect"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import type { ToolResult } from "../../../src/domain/tools.js"
import type { PreparedCall, Tool, ToolContext, ToolInputError } from "../../../src/services/ToolRouter.js"
import { LocalFileAccess } from "../../../src/layers/tools/local-file-access.js"

/** A fresh temporary workspace (symlinks resolved, as ToolContext promises), removed when the scope closes. */
export const tempWorkspace = Effect.acquireRelease(
  Effect.promise(async () => fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "tools-test-")))),
  (root) => Effect.promise(() => fs.rm(root, { recursive: true, force: true }))
)

/** A second temporary directory outside the workspace, for escape tests. */
export const tempOutside = Effect.acquireRelease(
  Effect.promise(async () => fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "tools-outside-")))),
  (dir) => Effect.promise(() => fs.rm(dir, { recursive: true, force: true }))
)

export const contextFor = (workspaceRoot: string): ToolContext => ({
  sessionId: "ses_test",
  toolCallId: "call_test",
  workspaceRoot,
  files: LocalFileAccess
})

/** Writes files (path relative to root -> content), creating parents. */
export const writeFiles = (root: string, files: Record<string, string | Uint8Array>): Effect.Effect<void> =>
  Effect.promise(async () => {
    for (const [name, content] of Object.entries(files)) {
      const target = path.join(root, name)
      await fs.mkdir(path.dirname(target), { recursive: true })
      await fs.writeFile(target, content)
    }
  })

export const readText = (p: string): Effect.Effect<string> => Effect.promise(() => fs.readFile(p, "utf8"))

export const prepare = (tool: Tool, input: unknown, root: string): Effect.Effect<PreparedCall, ToolInputError> =>
  tool.prepare(input, contextFor(root))

/** Prepare then execute, as the router and executor would. */
export const run = (tool: Tool, input: unknown, root: string): Effect.Effect<ToolResult, ToolInputError> =>
  Effect.flatMap(prepare(tool, input, root), (call) => call.execute)
