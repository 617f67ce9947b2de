import type { AgentEvent } from "../domain/events.js"
import { answerClientLabel } from "../domain/answer-client.js"
import { taskCounts, taskListLines } from "../domain/tasks.js"
import { hookSummary } from "../domain/hook-summary.js"
import { projectWidening } from "../domain/project-widening.js"
import { addSpend, formatUsd, noSpend, shownCost } from "../domain/spend.js"
import { indentLines, joinText, paint, type Printable, sanitizeInline, type TerminalText, term, toTerminalText } from "./terminal-text.js"

export type Channel = "out" | "err"

export interface Segment {
  readonly channel: Channel
  /** Content sanitized, with the CLI's own colours (see `terminal-text.ts`). */
  readonly text: Printable
}

export interface RenderOptions {
  /** ANSI colours (a TTY without NO_COLOR). */
  readonly color: boolean
  /**
   * Live (`run`): the answer goes to stdout, everything else to stderr, the prompt is not
   * echoed. Replay (`sessions show`): everything to stdout, prompts included.
   */
  readonly live: boolean
  /** Start each event's first line with its sequence (`#12`), which `--at SEQ` takes (`sessions show`). */
  readonly sequences?: boolean
}

export { paint }

const oneLine = (text: string, max = 120) => {
  const line = text.replace(/\s+/g, " ").trim()
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}

const clock = (timestamp: string) => timestamp.slice(11, 19)

const lines = (text: string, max: number): string => {
  const all = text.replace(/\n$/, "").split("\n")
  if (all.length <= max) return all.join("\n")
  return [...all.slice(0, max), `… ${all.length - max} more lines`].join("\n")
}

/**
 * One renderer for live turns and replayed sessions, so `sessions show` prints the same
 * turn `run` printed. It tracks where each channel's cursor is to keep lines tidy.
 */
export const makeRenderer = (options: RenderOptions) => {
  const dim = paint(options.color, "2")
  const bold = paint(options.color, "1")
  const red = paint(options.color, "31")
  const green = paint(options.color, "32")
  const yellow = paint(options.color, "33")
  const cyan = paint(options.color, "36")
  const side: Channel = options.live ? "err" : "out"
  const atLineStart: Record<Channel, boolean> = { out: true, err: true }
  let turnNumber = 0
  /** What the current turn's model requests and its subagents spent, for its closing line. */
  let turnSpend = noSpend
  let inThinking = false
  const toolNames = new Map<string, string>()

  /** The event being rendered, and whether its number was written yet. */
  let sequence = 0
  let numbered = true
  const write = (channel: Channel, content: Printable): Segment => {
    let text: TerminalText = toTerminalText(content)
    if (options.sequences === true && !numbered && channel === "out" && atLineStart.out && text.text !== "" && text.text !== "\n") {
      numbered = true
      text = toTerminalText(term`${dim(`#${sequence} `)}${text}`)
    }
    if (text.text.length > 0) atLineStart[channel] = text.text.endsWith("\n")
    return { channel, text }
  }
  /** A whole line on a channel, breaking off any streamed text first. */
  const line = (channel: Channel, text: Printable): Array<Segment> => {
    const out: Array<Segment> = []
    // Streamed text on stdout and status lines on stderr share a terminal.
    if (!atLineStart.out) out.push(write("out", "\n"))
    if (channel === "err" && !atLineStart.err) out.push(write("err", "\n"))
    out.push(write(channel, term`${text}\n`))
    return out
  }

  const diffColored = (diff: string) =>
    joinText(
      diff
        .split("\n")
        .filter((l) => !l.startsWith("===") && !l.startsWith("Index:"))
        .map((l) => (l.startsWith("+") && !l.startsWith("+++") ? green(l) : l.startsWith("-") && !l.startsWith("---") ? red(l) : dim(l))),
      "\n"
    )

  const render = (event: AgentEvent): ReadonlyArray<Segment> => {
    if (event.sequence !== sequence) {
      sequence = event.sequence
      numbered = false
    }
    if (event.type !== "model.thinking_delta" && inThinking) {
      inThinking = false
      if (!atLineStart[side]) return [write(side, "\n"), ...render(event)]
    }
    switch (event.type) {
      case "session.created": {
        if (options.live) return []
        const parent = event.payload.parent
        return line(
          "out",
          term`${bold(`session ${event.sessionId}`)}${dim(` · ${event.payload.client} · ${event.payload.cwd}${event.payload.model === undefined ? "" : ` · ${event.payload.model}`} · ${event.timestamp}`)}${
            parent === undefined ? "" : dim(`\n  subagent ${parent.agent} (level ${parent.depth}) of session ${parent.sessionId}, started by its call ${parent.toolCallId}`)
          }`
        )
      }
      case "session.renamed":
        // The first prompt names a session on its own; live, that is no news.
        return options.live ? [] : line("out", dim(`  title: ${event.payload.title} (set by ${event.payload.by})`))
      case "session.archived":
        return options.live ? [] : line("out", dim(`  ${event.payload.archived ? "archived" : "unarchived"} by ${event.payload.by}`))
      case "session.forked": {
        const { sourceSessionId, atSequence, copiedThrough } = event.payload
        const cut = copiedThrough < atSequence ? `, through #${copiedThrough}: the turn at #${atSequence} had not ended` : ""
        return options.live ? [] : line("out", dim(`  forked from ${sourceSessionId} at #${atSequence}${cut}`))
      }
      case "session.mode_changed":
        return line(side, dim(`  mode: ${event.payload.mode} (set by ${event.payload.by})`))
      case "session.model_changed":
        return line(side, dim(`  model: ${event.payload.model} (set by ${event.payload.by})`))
      case "turn.started":
        turnNumber++
        turnSpend = noSpend
        return options.live ? [] : line("out", cyan(`── turn ${turnNumber} · ${clock(event.timestamp)} ──`))
      case "user.message":
        if (options.live) return []
        return line("out", term`${bold(`› ${event.payload.content}`)}${event.payload.mode === "steer" ? dim(" (steer)") : ""}`)
      case "model.delta":
        return [write("out", event.payload.text)]
      case "model.thinking_delta": {
        const text = event.payload.redacted === undefined ? event.payload.text : "[redacted thinking]"
        if (text === "") return []
        const prefix = inThinking ? "" : term`${atLineStart[side] && atLineStart.out ? "" : "\n"}${dim("thinking: ")}`
        inThinking = true
        return [write(side, term`${prefix}${dim(text)}`)]
      }
      case "model.tool_call_requested":
        toolNames.set(event.payload.toolCallId, event.payload.name)
        return line(side, term`${yellow(`⚙ ${event.payload.name}`)}${dim(` ${oneLine(JSON.stringify(event.payload.input))}`)}`)
      case "permission.requested":
        // One line, whatever the path or command holds: it cannot draw the answer's line under it.
        return line(side, term`${yellow(term`? ${sanitizeInline(event.payload.summary)}`)}${dim(` (${event.payload.risk}, asking)`)}`)
      case "permission.resolved": {
        const { by, client, decision, reason, rule, scope } = event.payload
        const verdict = decision === "allow" ? green("allowed") : red(decision === "deny" ? "denied" : "cancelled")
        // A remembered answer's reason says it was an earlier answer, and for how long.
        if (by === "remembered") return line(side, term`${dim("  ")}${verdict}${dim(term` by ${sanitizeInline(reason ?? "an earlier answer")}`)}`)
        const who = rule === undefined ? by : `${by} ${rule.source}#${rule.index + 1}`
        const lasting = scope === "once" ? "" : ` for ${scope === "session" ? "the session" : "always"}`
        // Only a person's answer has a place it came from; a policy decides where the turn runs.
        const where = by === "user" ? answerClientLabel(client) : undefined
        return line(side, term`${dim("  ")}${verdict}${dim(term` by ${who}${lasting}${where === undefined ? "" : sanitizeInline(`, ${where}`)}${reason === undefined ? "" : term`: ${sanitizeInline(reason)}`}`)}`)
      }
      case "plan.proposed":
        // The whole plan, every line: it is what the question that follows decides (sanitized like any content).
        return line(side, term`${cyan("◆ plan proposed, to approve or send back:")}\n${indentLines(event.payload.plan, "  │ ")}`)
      case "plan.resolved": {
        const { decision, by, mode, client, note, reason } = event.payload
        const where = by === "user" ? answerClientLabel(client) : undefined
        const who = sanitizeInline(`${by}${where === undefined ? "" : `, ${where}`}`)
        if (decision === "approved") return line(side, term`${green("✓ plan approved")}${dim(term` by ${who}: carried out in ${mode ?? "default"} mode`)}`)
        if (decision === "cancelled") return line(side, dim(term`  plan question withdrawn: ${sanitizeInline(reason ?? "the turn was cancelled")}`))
        const why = note !== undefined ? term`: ${sanitizeInline(note)}` : reason !== undefined ? term`: ${sanitizeInline(reason)}` : ""
        const what = by === "policy" ? "✗ plan not approved" : "✗ plan sent back"
        return line(side, term`${red(what)}${dim(term` by ${who} (the session stays in plan mode)${why}`)}`)
      }
      case "tool.started":
      // A command's output while it runs is the terminal view's (live-view.ts); its result prints it.
      case "tool.output":
        return []
      case "permission.project_rules": {
        const { file, allowRules, opensNetwork, trusted, trustedBy, hooks } = event.payload
        if (allowRules === 0 && !opensNetwork && (hooks ?? 0) === 0) return []
        const widening = projectWidening(allowRules, opensNetwork, hooks)
        return line(
          "err",
          trusted
            ? dim(`project rules ${file} trusted${trustedBy === undefined ? "" : ` by ${trustedBy}`}: ${widening} apply`)
            : yellow(`project rules ${file} are not trusted: ${widening} ignored (custom-agent trust)`)
        )
      }
      case "tool.completed": {
        const name = toolNames.get(event.payload.toolCallId) ?? "tool"
        const data = event.payload.data
        const mark = event.payload.isError ? red("✗") : green("✓")
        const took = dim(` ${Math.round(event.payload.durationMs)} ms`)
        if (data?._tag === "edit") {
          return line(side, term`  ${mark} ${name} ${sanitizeInline(data.path)}${took}\n${diffColored(data.diff)}`)
        }
        if (data?._tag === "shell") {
          const status = data.timedOut ? "timed out" : data.exitCode === null ? `killed (${data.signal ?? "signal"})` : `exit ${data.exitCode}`
          return line(side, term`  ${mark} ${dim("$")} ${data.command} ${dim(`(${status})`)}${took}\n${dim(lines(event.payload.output, 20))}`)
        }
        return line(side, term`  ${mark} ${name}${took}${event.payload.isError ? term` ${red(oneLine(event.payload.output))}` : dim(` ${oneLine(event.payload.output, 100)}`)}`)
      }
      case "model.completed": {
        turnSpend = addSpend(turnSpend, event)
        const { usage, costUsd } = event.payload
        const cost = costUsd === undefined ? "" : ` · ${formatUsd(costUsd)}`
        return options.live ? [] : line("out", dim(`  · ${event.payload.stopReason} · ${usage.inputTokens} in / ${usage.outputTokens} out tokens${cost}`))
      }
      case "model.failed":
        return options.live ? [] : line("out", red(`model error (${event.payload.code}): ${event.payload.reason}`))
      case "inbox.updated": {
        const waiting = event.payload.nextTurn.length + event.payload.nextStep.length
        return line(side, dim(`  inbox: ${event.payload.nextTurn.length} queued, ${event.payload.nextStep.length} steering${waiting === 0 ? "" : ` (next: ${oneLine((event.payload.nextStep[0] ?? event.payload.nextTurn[0])?.content ?? "", 60)})`}`))
      }
      case "context.source":
        return options.live ? [] : line("out", dim(`  context source: ${event.payload.kind} ${event.payload.id} (${event.payload.text.length} chars)`))
      case "context.built": {
        if (options.live) return []
        const parts = event.payload.sources.map((source) => `${source.kind} ${source.tokens}`).join(", ")
        return line("out", dim(`  context: ${event.payload.totalTokens} of ${event.payload.budget} tokens (${parts}, history ${event.payload.historyTokens}, tools ${event.payload.toolsTokens}${event.payload.tasks === undefined ? "" : `, task list ${event.payload.tasks.tokens}`})`))
      }
      case "context.compacted": {
        turnSpend = addSpend(turnSpend, event)
        const { turns, tokensBefore, tokensAfter, fromSequence, throughSequence, pieces, spend } = event.payload
        const range = fromSequence === undefined ? "" : ` (events #${fromSequence}–#${throughSequence}${pieces === undefined || pieces < 2 ? "" : `, summarized in ${pieces} pieces`})`
        const cost = shownCost(spend)
        return line(side, term`${yellow(`── compacted ${turns.length} earlier turn(s)${range}: ${tokensBefore} → ${tokensAfter} tokens`)}${cost === undefined ? "" : dim(` · ${cost}`)}`)
      }
      case "task.updated": {
        const { todos } = event.payload
        if (todos.length === 0) return line(side, cyan("☰ task list cleared"))
        const counts = taskCounts(todos)
        const head = cyan(`☰ task list: ${counts.completed}/${todos.length} done${counts.in_progress === 0 ? "" : `, ${counts.in_progress} in progress`}`)
        return line(side, joinText([head, ...taskListLines(todos).map((l, i) => term`  ${todos[i]?.status === "completed" ? dim(l) : l}`)], "\n"))
      }
      case "memory.candidate_proposed":
        return line(side, term`${cyan(`✎ memory proposed (${event.payload.scope}): ${oneLine(event.payload.text)}`)}${dim(" — review with: custom-agent memory review")}`)
      case "memory.approved":
        return line(side, green(`✓ memory approved (${event.payload.scope}) by ${event.payload.by}: ${oneLine(event.payload.text)}`))
      case "memory.rejected":
        return line(side, dim(`✗ memory candidate ${event.payload.candidateId} rejected by ${event.payload.by}`))
      case "memory.deleted":
        return line(side, dim(`✗ memory ${event.payload.memoryId} deleted by ${event.payload.by}`))
      case "skill.loaded":
        return line(side, dim(`  skill loaded: ${event.payload.name}`))
      case "hook.ran": {
        const { decision, timedOut, exitCode } = event.payload
        const notable = timedOut || (exitCode !== 0 && exitCode !== 2) || decision === "deny" || decision === "block"
        // Every run shows as it happens, a quiet one dim: a person sees what ran on their machine.
        return line(side, (notable ? yellow : dim)(`  ${hookSummary(event.payload)} ${Math.round(event.payload.durationMs)} ms`))
      }
      case "mcp.notice":
        return line(side, (event.payload.state === "ready" || event.payload.state === "tools_changed" ? dim : red)(`  mcp ${event.payload.server}: ${event.payload.state.replace("_", " ")}${event.payload.message === undefined ? "" : ` (${oneLine(event.payload.message, 160)})`}`))
      case "checkpoint.recorded": {
        const { changed, notKept, trigger } = event.payload
        if (options.live && changed.length === 0 && notKept.length === 0) return []
        const what = trigger === "before_tools" ? "checkpoint before tools" : "checkpoint"
        const left = notKept.length === 0 ? "" : yellow(` (not kept: ${notKept.map((file) => `${file.path} ${file.reason.replace(/_/g, " ")}`).join(", ")})`)
        return line(side, term`${dim(`  ${what} #${event.sequence}: ${changed.length === 0 ? "no changes" : `${changed.length} changed`}`)}${left}`)
      }
      case "checkpoint.restored": {
        const { paths, drift, by, redo, checkpointSequence } = event.payload
        const restored = [...new Set([...paths, ...drift])]
        const files = restored.length === 0 ? "nothing to restore" : `${restored.length} file(s): ${oneLine(restored.join(", "), 100)}`
        const overwrote = drift.length === 0 ? "" : yellow(` (${drift.length} of them changed outside the agent, overwritten: ${oneLine(drift.join(", "), 100)})`)
        return line(side, term`${cyan(`↺ ${redo ? "redo: " : ""}files restored to checkpoint #${checkpointSequence} by ${by}: ${files}`)}${overwrote}`)
      }
      case "conversation.rewound":
        return line(side, cyan(`↺ ${event.payload.redo ? "redo: " : ""}conversation rewound to #${event.payload.toSequence} by ${event.payload.by}`))
      case "output.structured":
        return options.live ? [] : line("out", term`${green(`{} structured output validated`)}${dim(` (${event.payload.attempts} attempt${event.payload.attempts === 1 ? "" : "s"}): ${oneLine(JSON.stringify(event.payload.value), 160)}`)}`)
      case "subagent.started":
        return line(side, cyan(`↳ subagent ${event.payload.agent} (session ${event.payload.childSessionId}): ${oneLine(event.payload.prompt, 100)}`))
      case "subagent.completed": {
        turnSpend = addSpend(turnSpend, event)
        const { agent, stopReason, usage, answer, spend } = event.payload
        const how = stopReason === "final" ? green("answered") : yellow(stopReason.replace("_", " "))
        const cost = shownCost(spend)
        const spent = cost === undefined ? "" : ` · ${cost}`
        return line(side, term`${dim("  ")}${how}${dim(` · subagent ${agent} · ${usage.inputTokens} in / ${usage.outputTokens} out tokens${spent} · ${oneLine(answer, 100)}`)}`)
      }
      case "turn.completed": {
        const { stopReason, errorCode, message } = event.payload
        // Only when some request was priced (its subagents' included): a model with no price has nothing to add.
        const cost = shownCost(turnSpend)
        const spent = options.live || cost === undefined ? "" : ` · cost ${cost}`
        if (stopReason === "final") {
          if (!options.live) return line("out", dim(`── done${spent}`))
          return atLineStart.out ? [] : [write("out", "\n")]
        }
        // Live, model.failed printed nothing: the closing line carries the message.
        const said = options.live && message !== undefined ? `: ${message}` : ""
        const detail =
          stopReason === "error"
            ? `error${errorCode === undefined ? "" : ` (${errorCode})`}${said}`
            : `${stopReason.replace("_", " ")}${stopReason === "budget" && message !== undefined ? `: ${message}` : ""}${
                stopReason === "max_steps" && options.live
                  ? ` (the turn stopped at its step limit; go on with: custom-agent run --session ${event.sessionId} "continue", and --max-steps N for more a turn)`
                  : ""
              }`
        return line(side, term`${(stopReason === "error" ? red : yellow)(`── ${detail}`)}${dim(spent)}`)
      }
    }
  }

  const childTools = new Map<string, string>()
  /**
   * A subagent's own event, shown under its `↳ subagent` line as it happens: each tool call it
   * makes, how the call ended, and a question refused. Its text stays with its answer line.
   */
  const renderChild = (event: AgentEvent): ReadonlyArray<Segment> => {
    switch (event.type) {
      case "model.tool_call_requested":
        childTools.set(event.payload.toolCallId, event.payload.name)
        return line(side, dim(term`  │ ⚙ ${event.payload.name} ${oneLine(JSON.stringify(event.payload.input), 80)}`))
      case "tool.completed": {
        const name = childTools.get(event.payload.toolCallId) ?? "tool"
        const took = `${Math.round(event.payload.durationMs)} ms`
        return event.payload.isError
          ? line(side, term`${dim("  │   ")}${red("✗")}${dim(` ${name} ${took}`)} ${red(oneLine(event.payload.output, 100))}`)
          : line(side, term`${dim("  │   ")}${green("✓")}${dim(` ${name} ${took}`)}`)
      }
      case "permission.resolved":
        return event.payload.decision === "allow" ? [] : line(side, term`${dim("  │   ")}${red("denied")}${dim(` by ${event.payload.by}`)}`)
      case "subagent.started":
        return line(side, dim(term`  │ ↳ subagent ${event.payload.agent}: ${oneLine(event.payload.prompt, 80)}`))
      default:
        return []
    }
  }

  /**
   * Ends the lines left open (streamed text, thinking) before another writer's whole lines: the
   * terminal view (`live-view.ts`) prints the answer and the tool calls itself.
   */
  const settle = (): ReadonlyArray<Segment> => {
    inThinking = false
    return [...(atLineStart.out ? [] : [write("out", "\n")]), ...(atLineStart.err ? [] : [write("err", "\n")])]
  }

  return { render, renderChild, settle }
}
