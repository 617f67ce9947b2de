import type { ToolCallContent, ToolCallUpdate } from "@agentclientprotocol/sdk/unstable"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { currentContent } from "../layers/tools/current-content.js"
import { planEdit } from "../layers/tools/edit-plan.js"
import { resolveWorkspacePath } from "../layers/tools/workspace-paths.js"
import type { FileAccess } from "../services/ToolRouter.js"

const WriteInput = Schema.Struct({ path: Schema.String, content: Schema.String })
const EditInput = Schema.Struct({
  path: Schema.String,
  old_string: Schema.String,
  new_string: Schema.String,
  replace_all: Schema.optionalWith(Schema.Boolean, { exact: true })
})
const decodeWrite = Schema.decodeUnknownOption(WriteInput)
const decodeEdit = Schema.decodeUnknownOption(EditInput)

/** A session as its tools see it: its workspace and the file access they use. */
export interface SessionFiles {
  readonly sessionId: string
  readonly cwd: string
  readonly files: FileAccess
}

/**
 * The change an edit_file or write_file call would make, as an ACP `diff` of whole texts
 * (what editors render as a diff). The old text is the file as the tool sees it, read
 * through the same access (the editor's buffer when it serves files). None when it cannot
 * be shown truthfully: another tool, a file outside the workspace (not read before the call
 * is allowed, as the tools do), or an edit that would not apply.
 */
export const editDiff = (session: SessionFiles, toolCall: ToolCallUpdate): Effect.Effect<Option.Option<ToolCallContent>> =>
  Effect.gen(function* () {
    const { toolCallId, name, rawInput } = toolCall
    const write = name === "write_file" ? decodeWrite(rawInput) : Option.none()
    const edit = name === "edit_file" ? decodeEdit(rawInput) : Option.none()
    const path = Option.isSome(write) ? write.value.path : Option.isSome(edit) ? edit.value.path : undefined
    if (path === undefined) return Option.none()
    const { sessionId, cwd, files } = session
    const target = yield* resolveWorkspacePath(cwd, path)
    if (target.outsideWorkspace) return Option.none()
    const before = yield* currentContent(target, { sessionId, toolCallId, workspaceRoot: cwd, files }).pipe(Effect.option)
    if (Option.isNone(before)) return Option.none()
    const oldText = before.value
    const diff = (newText: string): Option.Option<ToolCallContent> => Option.some({ type: "diff", path: target.absolute, oldText, newText })
    if (Option.isSome(write)) return diff(write.value.content)
    if (Option.isNone(edit) || oldText === null) return Option.none()
    const plan = planEdit(oldText, edit.value, target.display)
    return plan._tag === "ok" ? diff(plan.after) : Option.none()
  })

/** The permission question's tool call, showing an edit as a diff rather than as text. */
export const withEditDiff = (session: SessionFiles, toolCall: ToolCallUpdate): Effect.Effect<ToolCallUpdate> =>
  Effect.map(editDiff(session, toolCall), Option.match({ onNone: () => toolCall, onSome: (diff) => ({ ...toolCall, content: [diff] }) }))
