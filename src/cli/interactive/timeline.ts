import type { AgentEvent, QueuedMessage } from "../../domain/events.js"
import { answerClientLabel } from "../../domain/answer-client.js"
import { hookSummary } from "../../domain/hook-summary.js"
import type { PermissionMode } from "../../domain/permissions.js"
import { projectWidening } from "../../domain/project-widening.js"
import { typedLine } from "../../domain/slash-commands.js"
import { addSpend, noSpend, type Spend } from "../../domain/spend.js"
import { taskCounts, type TodoItem } from "../../domain/tasks.js"
import type { ToolResultData } from "../../domain/tools.js"
import { LiveTail } from "../view/live-tail.js"
import { formatTokens } from "../view/units.js"
import { emptyTally, tallyEvent, type TurnTally } from "../view/turn-summary.js"
import { foldDeclared } from "../../domain/attached-blocks.js"

/** How a note is coloured: quiet news, news, something to look at, a failure, a success. */
export type Tone = "dim" | "info" | "warn" | "error" | "ok"

export type ToolState = "requested" | "asking" | "running" | "done" | "failed" | "denied" | "cancelled"

/** A subagent's tool call, shown under the `task` call that started it. */
export interface ChildCall {
  readonly toolCallId: string
  readonly name: string
  readonly input: unknown
  state: ToolState
  durationMs?: number
  output?: string
  data?: ToolResultData
}

export interface SubagentRun {
  readonly agent: string
  readonly childSessionId: string
  readonly prompt: string
  stopReason?: string
  answer?: string
}

/** Every block is content the timeline keeps and the screen draws; `version` changes when it does. */
export type Block =
  /** `attached`: the files the message declares attached (their blocks already taken out of `text`). */
  | { readonly kind: "user"; readonly text: string; readonly steer: boolean; readonly command?: string; readonly attached?: ReadonlyArray<string>; version: number }
  | { readonly kind: "assistant"; text: string; version: number }
  | { readonly kind: "thinking"; text: string; readonly redacted: boolean; version: number }
  | ToolBlock
  | { readonly kind: "plan"; readonly plan: string; version: number }
  | { readonly kind: "note"; readonly text: string; readonly tone: Tone; version: number }
  | { readonly kind: "detail"; readonly title: string; readonly body: string; readonly diff: boolean; version: number }
  /** A turn's last line (`view/turn-summary.ts`, as `run` prints it). */
  | { readonly kind: "summary"; readonly tally: TurnTally; version: number }

export interface ToolBlock {
  readonly kind: "tool"
  readonly toolCallId: string
  readonly name: string
  readonly input: unknown
  state: ToolState
  /** Who decided a question about it, when that is news: a person, another client, a rule that denied. */
  verdict?: string
  durationMs?: number
  output?: string
  data?: ToolResultData
  /** Its last lines while it runs (`tool.output`), drawn under its line until it ends. */
  live?: LiveTail
  subagent?: SubagentRun
  readonly children: Array<ChildCall>
  version: number
}

/** What the status line and the area under the conversation show: not content of the log's order, the session now. */
export interface SessionState {
  mode: PermissionMode
  model: string | undefined
  running: boolean
  /** When the running turn started (ms since the epoch), for its elapsed time. */
  turnStartedAt: number | undefined
  turnSpend: Spend
  sessionSpend: Spend
  tasks: ReadonlyArray<TodoItem>
  queued: ReadonlyArray<QueuedMessage>
  steering: ReadonlyArray<QueuedMessage>
  /** 1-based, as `rewind --turn` counts them; with the preview of each prompt. */
  readonly turns: Array<{ readonly number: number; readonly preview: string; readonly sequence: number }>
}

const time = (timestamp: string): number => Date.parse(timestamp)

/**
 * The conversation as blocks, folded from the session's events in log order (its history, then
 * live), and the session's state beside it. Pure: no terminal, no clock but the events'; the
 * screen (`transcript.ts`) draws the blocks, and tests read them.
 */
export class Timeline {
  /** The clients this terminal answers through (`cli`, or `rpc:cli` on a server): its own answers need no "where". */
  readonly #own: ReadonlySet<string>
  constructor(own: ReadonlyArray<string> = ["cli", "rpc:cli"]) {
    this.#own = new Set(own)
  }

  readonly blocks: Array<Block> = []
  readonly state: SessionState = {
    mode: "default",
    model: undefined,
    running: false,
    turnStartedAt: undefined,
    turnSpend: noSpend,
    sessionSpend: noSpend,
    tasks: [],
    queued: [],
    steering: [],
    turns: []
  }
  readonly #tools = new Map<string, ToolBlock>()
  /** The current turn's tally, for its summary line. */
  #tally: TurnTally = emptyTally
  /** Child session → the `task` call it runs under, with each child call by id. */
  readonly #children = new Map<string, { readonly parent: ToolBlock; readonly calls: Map<string, ChildCall> }>()
  /** The block streamed text and thinking go on, until anything else is shown. */
  #open: Block | undefined

  /** A line of the session's own (a command's answer, a failure): not in the log. */
  note(text: string, tone: Tone = "dim"): void {
    this.#push({ kind: "note", text, tone, version: 0 })
  }

  /** A listing a command asked for (the context, the task list, remembered answers), shown whole. */
  detail(title: string, body: string): void {
    this.#push({ kind: "detail", title, body, diff: false, version: 0 })
  }

  /** The last tool call's whole detail (diff, output), added below: the key that expands it. */
  expandLast(): boolean {
    const tool = [...this.#tools.values()].at(-1)
    if (tool === undefined) return false
    const data = tool.data
    if (data?._tag === "edit") this.#push({ kind: "detail", title: `${tool.name} ${data.path}`, body: data.diff, diff: true, version: 0 })
    else if (data?._tag === "shell") this.#push({ kind: "detail", title: `$ ${data.command}`, body: tool.output ?? "", diff: false, version: 0 })
    else this.#push({ kind: "detail", title: tool.name, body: tool.output ?? runningBody(tool.live), diff: false, version: 0 })
    return true
  }

  lastTool(): ToolBlock | undefined {
    return [...this.#tools.values()].at(-1)
  }

  #push(block: Block) {
    this.#open = undefined
    this.blocks.push(block)
  }

  #touch(block: { version: number }) {
    block.version++
  }

  /** One event of the session, in log order. */
  apply(event: AgentEvent): void {
    const state = this.state
    this.#tally = tallyEvent(this.#tally, event)
    state.turnSpend = addSpend(state.turnSpend, event)
    state.sessionSpend = addSpend(state.sessionSpend, event)
    switch (event.type) {
      case "session.created":
        if (event.payload.model !== undefined) state.model = event.payload.model
        return
      case "session.mode_changed":
        state.mode = event.payload.mode
        return this.note(`mode: ${event.payload.mode} (set by ${event.payload.by})`)
      case "session.model_changed":
        state.model = event.payload.model
        return this.note(`model: ${event.payload.model} (set by ${event.payload.by})`)
      case "session.forked":
        return this.note(`forked from ${event.payload.sourceSessionId} at #${event.payload.atSequence}`)
      case "turn.started":
        state.running = true
        state.turnStartedAt = time(event.timestamp)
        state.turnSpend = noSpend
        state.turns.push({ number: state.turns.length + 1, preview: event.payload.promptPreview, sequence: event.sequence })
        if (event.payload.permissionMode !== undefined) state.mode = event.payload.permissionMode
        this.#open = undefined
        return
      case "user.message": {
        // A command file's message: what was typed is shown, the file it came from named (its body is what the model got).
        const command = event.payload.command
        if (command !== undefined) {
          return this.#push({ kind: "user", text: typedLine(command), steer: event.payload.mode === "steer", command: command.path, version: 0 })
        }
        // Only the blocks the message declares are folded: text shaped like one is shown as it is.
        const { text, attached } = foldDeclared(event.payload.content, event.payload.attached)
        return this.#push({ kind: "user", text, steer: event.payload.mode === "steer", ...(attached.length === 0 ? {} : { attached }), version: 0 })
      }
      case "model.delta": {
        if (event.payload.text === "") return
        const open = this.#open
        if (open?.kind === "assistant") {
          open.text += event.payload.text
          return this.#touch(open)
        }
        const block: Block = { kind: "assistant", text: event.payload.text, version: 0 }
        this.#push(block)
        this.#open = block
        return
      }
      case "model.thinking_delta": {
        const redacted = event.payload.redacted !== undefined
        const open = this.#open
        if (open?.kind === "thinking") {
          open.text += event.payload.text
          return this.#touch(open)
        }
        if (event.payload.text === "" && !redacted) return
        const block: Block = { kind: "thinking", text: event.payload.text, redacted, version: 0 }
        this.#push(block)
        this.#open = block
        return
      }
      case "model.tool_call_requested": {
        const block: ToolBlock = { kind: "tool", toolCallId: event.payload.toolCallId, name: event.payload.name, input: event.payload.input, state: "requested", children: [], version: 0 }
        this.#tools.set(block.toolCallId, block)
        return this.#push(block)
      }
      case "permission.requested": {
        const tool = this.#tools.get(event.payload.toolCallId)
        if (tool === undefined) return
        tool.state = "asking"
        return this.#touch(tool)
      }
      case "permission.resolved": {
        const tool = this.#tools.get(event.payload.toolCallId)
        if (tool === undefined) return
        const { decision, by, client, reason, scope } = event.payload
        if (decision === "allow") {
          tool.state = "running"
          // A person's answer is worth a word (where it came from, how long it holds); a rule's or a mode's is not.
          const ours = client !== undefined && this.#own.has(client)
          if (by === "user" && !(ours && scope === "once")) {
            tool.verdict = `allowed${scope === "once" ? "" : scope === "session" ? " for the session" : " always"}${ours ? "" : where(client)}`
          }
        } else {
          tool.state = decision === "deny" ? "denied" : "cancelled"
          tool.verdict = `${decision === "deny" ? "denied" : "cancelled"} by ${by}${where(client)}${reason === undefined ? "" : `: ${reason}`}`
        }
        return this.#touch(tool)
      }
      case "tool.started": {
        const tool = this.#tools.get(event.payload.toolCallId)
        if (tool === undefined) return
        tool.state = "running"
        return this.#touch(tool)
      }
      case "tool.output": {
        const tool = this.#tools.get(event.payload.toolCallId)
        if (tool === undefined) return
        tool.live ??= new LiveTail()
        tool.live.push(event.payload)
        return this.#touch(tool)
      }
      case "tool.completed": {
        const tool = this.#tools.get(event.payload.toolCallId)
        if (tool === undefined) return
        delete tool.live
        tool.state = event.payload.isError ? (tool.state === "denied" || tool.state === "cancelled" ? tool.state : "failed") : "done"
        tool.durationMs = event.payload.durationMs
        tool.output = event.payload.output
        if (event.payload.data !== undefined) tool.data = event.payload.data
        return this.#touch(tool)
      }
      case "plan.proposed":
        return this.#push({ kind: "plan", plan: event.payload.plan, version: 0 })
      case "plan.resolved": {
        const { decision, by, mode, client, note, reason } = event.payload
        const who = `${by}${client !== undefined && this.#own.has(client) ? "" : where(client)}`
        if (decision === "approved") return this.note(`✓ plan approved by ${who}: carried out in ${mode ?? "default"} mode`, "ok")
        if (decision === "cancelled") return this.note(`plan question withdrawn: ${reason ?? "the turn was cancelled"}`)
        return this.note(`✗ plan sent back by ${who} (the session stays in plan mode)${note !== undefined ? `: ${note}` : reason !== undefined ? `: ${reason}` : ""}`, "warn")
      }
      case "inbox.updated":
        state.queued = event.payload.nextTurn
        state.steering = event.payload.nextStep
        return
      case "context.compacted": {
        const { turns, tokensBefore, tokensAfter } = event.payload
        return this.note(`compacted ${turns.length} earlier turn(s): ${tokensBefore} → ${tokensAfter} tokens`, "info")
      }
      case "task.updated": {
        state.tasks = event.payload.todos
        const counts = taskCounts(event.payload.todos)
        return this.note(event.payload.todos.length === 0 ? "☰ task list cleared" : `☰ tasks: ${counts.completed}/${event.payload.todos.length} done`, "info")
      }
      case "memory.candidate_proposed":
        return this.note(`✎ memory proposed (${event.payload.scope}): ${event.payload.text} (/memory to review)`, "info")
      case "memory.approved":
        return this.note(`✓ memory approved (${event.payload.scope}) by ${event.payload.by}: ${event.payload.text}`, "ok")
      case "memory.rejected":
        return this.note(`✗ memory candidate ${event.payload.candidateId} rejected by ${event.payload.by}`)
      case "memory.deleted":
        return this.note(`✗ memory ${event.payload.memoryId} deleted by ${event.payload.by}`)
      case "skill.loaded":
        return this.note(`skill loaded: ${event.payload.name}`)
      case "hook.ran": {
        const { decision, timedOut, exitCode } = event.payload
        const notable = timedOut || (exitCode !== 0 && exitCode !== 2) || decision === "deny" || decision === "block"
        return this.note(`${hookSummary(event.payload)} ${Math.round(event.payload.durationMs)} ms`, notable ? "warn" : "dim")
      }
      case "mcp.notice": {
        const ok = event.payload.state === "ready" || event.payload.state === "tools_changed"
        return this.note(`mcp ${event.payload.server}: ${event.payload.state.replace("_", " ")}${event.payload.message === undefined ? "" : ` (${event.payload.message})`}`, ok ? "dim" : "error")
      }
      case "permission.project_rules": {
        const { file, allowRules, opensNetwork, trusted, hooks } = event.payload
        if (allowRules === 0 && !opensNetwork && (hooks ?? 0) === 0) return
        const widening = projectWidening(allowRules, opensNetwork, hooks)
        return trusted ? this.note(`project rules ${file} trusted: ${widening} apply`) : this.note(`project rules ${file} are not trusted: ${widening} ignored (custom-agent trust)`, "warn")
      }
      case "checkpoint.recorded": {
        const { notKept } = event.payload
        if (notKept.length === 0) return
        return this.note(`checkpoint #${event.sequence} left out: ${notKept.map((file) => `${file.path} (${file.reason.replace(/_/g, " ")})`).join(", ")}`, "warn")
      }
      case "checkpoint.restored": {
        const { paths, drift, by, redo, checkpointSequence } = event.payload
        const restored = [...new Set([...paths, ...drift])]
        return this.note(`↺ ${redo ? "redo: " : ""}files restored to checkpoint #${checkpointSequence} by ${by}: ${restored.length === 0 ? "nothing to restore" : restored.join(", ")}`, "info")
      }
      case "conversation.rewound":
        return this.note(`↺ ${event.payload.redo ? "redo: " : ""}conversation rewound to #${event.payload.toSequence} by ${event.payload.by}`, "info")
      case "subagent.started": {
        const tool = this.#tools.get(event.payload.toolCallId)
        if (tool === undefined) return
        tool.subagent = { agent: event.payload.agent, childSessionId: event.payload.childSessionId, prompt: event.payload.prompt }
        this.#children.set(event.payload.childSessionId, { parent: tool, calls: new Map() })
        return this.#touch(tool)
      }
      case "subagent.completed": {
        const tool = this.#tools.get(event.payload.toolCallId)
        if (tool?.subagent === undefined) return
        tool.subagent.stopReason = event.payload.stopReason
        tool.subagent.answer = event.payload.answer
        return this.#touch(tool)
      }
      case "model.failed":
        return this.note(`model error (${event.payload.code}): ${event.payload.reason}`, "error")
      case "turn.completed": {
        const { stopReason, errorCode, message } = event.payload
        state.running = false
        state.turnStartedAt = undefined
        for (const tool of this.#tools.values()) {
          if (tool.state === "asking" || tool.state === "requested" || tool.state === "running") {
            tool.state = "cancelled"
            this.#touch(tool)
          }
        }
        this.#push({ kind: "summary", tally: this.#tally, version: 0 })
        // Why a turn stopped short, when the log says: the summary line names only how.
        if (stopReason !== "final" && (message !== undefined || errorCode !== undefined)) {
          this.note(`${errorCode === undefined ? "" : `(${errorCode}) `}${message ?? ""}`.trim(), stopReason === "error" ? "error" : "warn")
        }
        return
      }
      case "session.renamed":
      case "session.archived":
      case "model.completed":
      case "context.source":
      case "context.built":
      case "output.structured":
        return
    }
  }

  /** An event of a subagent's session: its tool calls, shown under the `task` call that started it. */
  applyChild(childSessionId: string, event: AgentEvent): void {
    const child = this.#children.get(childSessionId)
    if (child === undefined) return
    const { parent, calls } = child
    switch (event.type) {
      case "model.tool_call_requested": {
        const call: ChildCall = { toolCallId: event.payload.toolCallId, name: event.payload.name, input: event.payload.input, state: "requested" }
        calls.set(call.toolCallId, call)
        parent.children.push(call)
        return this.#touch(parent)
      }
      case "tool.started":
      case "permission.resolved":
      case "tool.completed": {
        const call = calls.get(event.payload.toolCallId)
        if (call === undefined) return
        if (event.type === "tool.started") call.state = "running"
        else if (event.type === "permission.resolved") call.state = event.payload.decision === "allow" ? "running" : "denied"
        else {
          call.state = event.payload.isError ? (call.state === "denied" ? "denied" : "failed") : "done"
          call.durationMs = event.payload.durationMs
          call.output = event.payload.output
          if (event.payload.data !== undefined) call.data = event.payload.data
        }
        return this.#touch(parent)
      }
      default:
        return
    }
  }
}

/** A running call's detail: its last lines so far, if it printed any. */
const runningBody = (live: LiveTail | undefined): string => {
  const lines = live?.lines() ?? []
  return lines.length === 0 ? "(still running: no output yet)" : `(still running; its last lines so far:)\n${lines.join("\n")}`
}

/** `, on the web` after a verdict: where a person's answer came from. */
const where = (client: string | undefined) => {
  const label = answerClientLabel(client)
  return label === undefined ? "" : `, ${label}`
}

/** `1.2k tokens · $0.0123` for what was spent; nothing before the first request. */
export const spendText = (spend: Spend): string | undefined => {
  if (spend.requests === 0) return undefined
  const cost = spend.unpriced === spend.requests ? "" : ` · ${spend.unpriced === 0 ? "" : "≥ "}$${spend.costUsd.toFixed(4)}`
  return `${formatTokens(spend.tokens)} tokens${cost}`
}

