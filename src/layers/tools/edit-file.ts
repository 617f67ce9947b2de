import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { ToolResult } from "../../domain/tools.js"
import { type ToolContext, ToolInputError } from "../../services/ToolRouter.js"
import { currentContent } from "./current-content.js"
import { type EditRequest, planEdit } from "./edit-plan.js"
import { makeTool } from "./make-tool.js"
import { errorResult, okResult } from "./tool-results.js"
import { unifiedDiff } from "./unified-diff.js"
import { OUTSIDE_NOTE, resolveWorkspacePath, type WorkspacePath } from "./workspace-paths.js"

const EditFileInput = Schema.Struct({
  path: Schema.String.annotations({ description: "The file to edit: relative to the workspace root, or absolute." }),
  old_string: Schema.String.pipe(Schema.minLength(1)).annotations({
    description: "The exact text to replace, including whitespace and indentation. It must occur exactly once unless replace_all is true."
  }),
  new_string: Schema.String.annotations({ description: "The text to put in its place." }),
  replace_all: Schema.optionalWith(
    Schema.Boolean.annotations({ description: "Replace every occurrence of old_string instead of exactly one (default false)." }),
    { exact: true }
  )
})

export const editFileTool = makeTool({
  name: "edit_file",
  description:
    "Edit a file by exact string replacement: old_string must match exactly one place in the file (or set replace_all). " +
    "Read the file first and copy old_string from it. The result shows the change as a unified diff.",
  input: EditFileInput,
  prepare: (input, ctx) =>
    Effect.gen(function* () {
      if (input.old_string === input.new_string) {
        return yield* new ToolInputError({ message: "old_string and new_string are identical; nothing would change" })
      }
      const target = yield* resolveWorkspacePath(ctx.workspaceRoot, input.path)
      // The diff shown before approval; a bad file or match state is reported by execute, which re-reads the file.
      // Outside the workspace nothing is read before the call is allowed (see write_file).
      if (target.outsideWorkspace) {
        return {
          risk: "write" as const,
          summary: `edit ${target.display} (outside the workspace)`,
          detail: `${OUTSIDE_NOTE}\n- ${input.old_string}\n+ ${input.new_string}`,
          paths: [target.absolute],
          outsideWorkspace: true,
          execute: editFile(target, input, ctx)
        }
      }
      const preview = yield* editedContent(target, input, ctx).pipe(Effect.option)
      return {
        risk: "write" as const,
        summary: `edit ${target.display}`,
        ...(preview._tag === "Some" ? { detail: unifiedDiff(target.display, preview.value.before, preview.value.after).diff } : {}),
        paths: [target.absolute],
        outsideWorkspace: target.outsideWorkspace,
        execute: editFile(target, input, ctx)
      }
    })
})

const editedContent = (
  target: WorkspacePath,
  request: EditRequest,
  ctx: ToolContext
): Effect.Effect<{ before: string; after: string; replacements: number }, string> =>
  Effect.gen(function* () {
    const before = yield* currentContent(target, ctx)
    if (before === null) return yield* Effect.fail(`file not found: ${target.display} (to create a file, use write_file)`)
    const plan = planEdit(before, request, target.display)
    if (plan._tag === "problem") return yield* Effect.fail(plan.message)
    return { before, after: plan.after, replacements: plan.replacements }
  })

const editFile = (target: WorkspacePath, request: EditRequest, ctx: ToolContext): Effect.Effect<ToolResult> =>
  Effect.gen(function* () {
    const { before, after, replacements } = yield* editedContent(target, request, ctx)
    yield* ctx.files.writeText(target.absolute, after, target.real).pipe(Effect.mapError((error) => error.message))
    const { diff } = unifiedDiff(target.display, before, after)
    const what = replacements === 1 ? "1 replacement" : `${replacements} replacements`
    return okResult(`Edited ${target.display} (${what}):\n${diff}`, { _tag: "edit", path: target.display, before, after, diff })
  }).pipe(Effect.catchAll((message) => Effect.succeed(errorResult(message))))
