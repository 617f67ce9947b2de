import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { ToolResult } from "../../domain/tools.js"
import type { ToolContext } from "../../services/ToolRouter.js"
import { currentContent } from "./current-content.js"
import { makeTool } from "./make-tool.js"
import { errorResult, okResult } from "./tool-results.js"
import { unifiedDiff } from "./unified-diff.js"
import { OUTSIDE_NOTE, resolveWorkspacePath, type WorkspacePath } from "./workspace-paths.js"

const WriteFileInput = Schema.Struct({
  path: Schema.String.annotations({
    description: "The file to write: relative to the workspace root, or absolute. Missing parent directories are created."
  }),
  content: Schema.String.annotations({ description: "The complete new content of the file." })
})

export const writeFileTool = makeTool({
  name: "write_file",
  description:
    "Create a file or replace its whole content. To change part of an existing file, prefer edit_file. " +
    "The result shows the change as a unified diff.",
  input: WriteFileInput,
  prepare: (input, ctx) =>
    Effect.gen(function* () {
      const target = yield* resolveWorkspacePath(ctx.workspaceRoot, input.path)
      // A file outside the workspace is not read before the call is allowed: its content would
      // show in the question (and the log) without anyone having allowed that read.
      if (target.outsideWorkspace) {
        return {
          risk: "write" as const,
          summary: `write ${target.display} (outside the workspace)`,
          detail: `${OUTSIDE_NOTE}\n${unifiedDiff(target.display, null, input.content).diff}`,
          paths: [target.absolute],
          outsideWorkspace: true,
          execute: writeFile(target, input.content, ctx)
        }
      }
      // The diff shown before approval; execute recomputes it from the file as it is by then.
      const before = yield* currentContent(target, ctx).pipe(Effect.option)
      const preview = before._tag === "Some" ? unifiedDiff(target.display, before.value, input.content).diff : undefined
      return {
        risk: "write" as const,
        summary: `${before._tag === "Some" && before.value === null ? "create" : "write"} ${target.display}`,
        ...(preview === undefined ? {} : { detail: preview }),
        paths: [target.absolute],
        outsideWorkspace: target.outsideWorkspace,
        execute: writeFile(target, input.content, ctx)
      }
    })
})

const writeFile = (target: WorkspacePath, content: string, ctx: ToolContext): Effect.Effect<ToolResult> =>
  Effect.gen(function* () {
    const before = yield* currentContent(target, ctx)
    yield* ctx.files.writeText(target.absolute, content, target.real).pipe(Effect.mapError((error) => error.message))
    const { diff, added, removed } = unifiedDiff(target.display, before, content)
    const output =
      before === null
        ? `Created ${target.display} (${countLines(content)} lines).`
        : `Wrote ${target.display} (+${added} -${removed} lines).`
    return okResult(output, { _tag: "edit", path: target.display, before, after: content, diff })
  }).pipe(Effect.catchAll((message) => Effect.succeed(errorResult(message))))

const countLines = (text: string): number => (text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0))
