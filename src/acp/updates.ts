import type { SessionUpdate, ToolCallContent, ToolCallUpdate } from "@agentclientprotocol/sdk/unstable"
import type { AgentEvent, EventOf } from "../domain/events.js"
import { PLAN_TOOL } from "../domain/plan.js"
import { typedLine } from "../domain/slash-commands.js"
import { sessionNote } from "./session-notes.js"
import { acpModeOf } from "./modes.js"
import { absolutePath, kindOf, locationsOf, titleOf } from "./tool-calls.js"

export interface TranslatorOptions {
  /** The session's workspace, to make tool paths absolute. */
  readonly cwd: string
  /** Replaying a stored session (`session/load`): user messages are sent too. Live, the client has them already. */
  readonly replay: boolean
}

export interface Translator {
  /** The `session/update`s one event becomes, in order (often none). */
  readonly updates: (event: AgentEvent) => ReadonlyArray<SessionUpdate>
  /** The tool call a permission question is about, as `session/request_permission` shows it. */
  readonly permissionToolCall: (event: EventOf<"permission.requested">) => ToolCallUpdate
  /** The plan a plan's question is about, as `session/request_permission` shows it. */
  readonly planToolCall: (event: EventOf<"plan.proposed">) => ToolCallUpdate
}

const text = (value: string): ToolCallContent => ({ type: "content", content: { type: "text", text: value } })

/** How much of a running call's output its updates show: the end, where the command is now. */
const RUNNING_TAIL_CHARS = 4_000

/**
 * Host events to ACP session updates, for a live turn and for a replay alike. Chunks of one
 * message share a message id (the id of its first event); every tool call the model asks
 * for is a `tool_call`, and ends with a `tool_call_update` that is `completed` or `failed`,
 * also when the turn ended before it ran; a title the session gets is a `session_info_update`.
 */
export const makeTranslator = (options: TranslatorOptions): Translator => {
  let messageId: string | undefined
  let thoughtId: string | undefined
  const open = new Map<string, { readonly name: string; readonly input: unknown }>()
  /** The output of calls still running, as their updates show it (its end, bounded). */
  const running = new Map<string, string>()

  const endMessage = () => {
    messageId = undefined
    thoughtId = undefined
  }

  const completed = (event: EventOf<"tool.completed">): SessionUpdate => {
    const { toolCallId, output, isError, data } = event.payload
    const content: Array<ToolCallContent> =
      data?._tag === "edit" && !isError
        ? [{ type: "diff", path: absolutePath(options.cwd, data.path), oldText: data.before, newText: data.after }]
        : output === ""
          ? []
          : [text(output)]
    return { sessionUpdate: "tool_call_update", toolCallId, status: isError ? "failed" : "completed", content }
  }

  const updates = (event: AgentEvent): ReadonlyArray<SessionUpdate> => {
    switch (event.type) {
      case "user.message":
        endMessage()
        return options.replay
          ? [{ sessionUpdate: "user_message_chunk", messageId: event.id, content: { type: "text", text: typedText(event) } }]
          : []
      case "model.delta":
        if (event.payload.text === "") return []
        thoughtId = undefined
        messageId ??= event.id
        return [{ sessionUpdate: "agent_message_chunk", messageId, content: { type: "text", text: event.payload.text } }]
      case "model.thinking_delta":
        if (event.payload.text === "") return []
        messageId = undefined
        thoughtId ??= event.id
        return [{ sessionUpdate: "agent_thought_chunk", messageId: thoughtId, content: { type: "text", text: event.payload.text } }]
      case "model.tool_call_requested": {
        endMessage()
        const { toolCallId, name, input } = event.payload
        open.set(toolCallId, { name, input })
        return [
          {
            sessionUpdate: "tool_call",
            toolCallId,
            name,
            title: titleOf(name, input),
            kind: kindOf(name),
            status: "pending",
            locations: locationsOf(options.cwd, input),
            rawInput: input
          }
        ]
      }
      case "tool.started":
        return [{ sessionUpdate: "tool_call_update", toolCallId: event.payload.toolCallId, status: "in_progress" }]
      case "tool.output": {
        // ACP's content replaces the call's content: each update gives the output so far (its end).
        const { toolCallId, skipped, capped } = event.payload
        const gap = skipped === undefined ? "" : `${(running.get(toolCallId) ?? "") === "" ? "" : "\n"}[… ${skipped} bytes not shown …]\n`
        const note = capped === true ? "\n[… the rest is shown when the command ends …]" : ""
        const all = `${running.get(toolCallId) ?? ""}${gap}${event.payload.text}`
        const shown = all.length > RUNNING_TAIL_CHARS ? `…${all.slice(-RUNNING_TAIL_CHARS)}` : all
        running.set(toolCallId, shown)
        return [{ sessionUpdate: "tool_call_update", toolCallId, status: "in_progress", content: [text(`${shown}${note}`)] }]
      }
      case "plan.proposed":
        // The plan shows as the call's content, in the timeline as well as in the question.
        return [{ sessionUpdate: "tool_call_update", toolCallId: event.payload.toolCallId, content: [text(event.payload.plan)] }]
      case "session.mode_changed":
        // Live, a plan approved (or a mode set by another client) moves the editor's mode picker; a
        // replay's history of modes does not: the load answer carries the mode the session is in.
        return options.replay ? [] : [{ sessionUpdate: "current_mode_update", currentModeId: acpModeOf(event.payload.mode) }]
      case "plan.resolved":
      case "permission.resolved":
        if (event.payload.decision !== "cancelled" || !open.delete(event.payload.toolCallId)) return []
        return [
          {
            sessionUpdate: "tool_call_update",
            toolCallId: event.payload.toolCallId,
            status: "failed",
            content: [text("Cancelled while waiting for permission; the call did not run.")]
          }
        ]
      case "tool.completed":
        open.delete(event.payload.toolCallId)
        running.delete(event.payload.toolCallId)
        return [completed(event)]
      case "session.created":
        // Seen only in a replay: the title a client gave the session as it created it.
        return event.payload.title === undefined ? [] : [{ sessionUpdate: "session_info_update", title: event.payload.title }]
      case "session.renamed":
        return [{ sessionUpdate: "session_info_update", title: event.payload.title }]
      case "checkpoint.restored":
      case "conversation.rewound":
      case "session.forked":
        // A message of its own: a note about the session between its turns, not part of an answer.
        endMessage()
        return [{ sessionUpdate: "agent_message_chunk", messageId: event.id, content: { type: "text", text: sessionNote(event) } }]
      case "task.updated":
        // ACP's plan is the same shape: the whole list each time, which the editor shows as it changes.
        return [{ sessionUpdate: "plan", entries: event.payload.todos.map((todo) => ({ content: todo.content, status: todo.status, priority: "medium" })) }]
      case "model.completed":
      case "output.structured":
      case "turn.started":
        endMessage()
        return []
      case "turn.completed": {
        endMessage()
        const left = [...open.keys()].map(
          (toolCallId): SessionUpdate => ({
            sessionUpdate: "tool_call_update",
            toolCallId,
            status: "failed",
            content: [text("The turn ended before this call ran.")]
          })
        )
        open.clear()
        running.clear()
        return left
      }
      // The rest shows nothing in an editor: listed, so a new event type has to be decided on here.
      case "session.model_changed":
      case "session.archived":
      case "model.failed":
      case "permission.requested":
      case "inbox.updated":
      case "context.source":
      case "context.built":
      case "context.compacted":
      case "memory.candidate_proposed":
      case "memory.approved":
      case "memory.rejected":
      case "memory.deleted":
      case "skill.loaded":
      case "mcp.notice":
      case "permission.project_rules":
      case "checkpoint.recorded":
      case "hook.ran":
        return []
      case "subagent.started":
        // The task call's content: whom it went to, then (on completion) the answer as its result.
        return [
          {
            sessionUpdate: "tool_call_update",
            toolCallId: event.payload.toolCallId,
            content: [text(`Delegated to ${event.payload.agent} (session ${event.payload.childSessionId}).`)]
          }
        ]
      case "subagent.completed":
        return []
    }
  }

  const permissionToolCall = (event: EventOf<"permission.requested">): ToolCallUpdate => {
    const { toolCallId, tool, summary, detail } = event.payload
    const requested = open.get(toolCallId)
    const input = requested?.input
    return {
      toolCallId,
      name: tool,
      title: summary,
      kind: kindOf(tool),
      status: "pending",
      locations: locationsOf(options.cwd, input),
      ...(input === undefined ? {} : { rawInput: input }),
      ...(detail === undefined ? {} : { content: [text(detail)] })
    }
  }

  const planToolCall = (event: EventOf<"plan.proposed">): ToolCallUpdate => {
    const { toolCallId, plan } = event.payload
    const input = open.get(toolCallId)?.input
    return {
      toolCallId,
      name: PLAN_TOOL,
      title: "Approve the plan and leave plan mode?",
      kind: "switch_mode",
      status: "pending",
      ...(input === undefined ? {} : { rawInput: input }),
      content: [text(plan)]
    }
  }

  return { updates, permissionToolCall, planToolCall }
}

/** A user message as the person sent it: a slash command's line rather than its expansion. */
const typedText = (event: EventOf<"user.message">): string => (event.payload.command === undefined ? event.payload.content : typedLine(event.payload.command))
