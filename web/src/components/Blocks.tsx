import { summarySectionHeadings } from "../../../src/domain/summary-sections.js"
import { useEffect, useState } from "preact/hooks"
import type { Api } from "../api.js"
import { follow } from "../follow.js"
import type { MemoryReview } from "../memory.js"
import { failureWords } from "../failure-words.js"
import { type Block, type CompactionNote, emptyTimeline, type NoteBlock, type TurnEndBlock } from "../timeline.js"
import type { TurnStats } from "../turn-stats.js"
import { Markdown } from "./Markdown.js"
import { ReviewButtons } from "./MemoryActions.js"
import { pure } from "./pure.js"
import { ToolCallView } from "./ToolCall.js"
import { TurnSummary } from "./TurnSummary.js"

const stopLabels: Record<string, string> = {
  final: "Turn ended",
  cancelled: "Turn cancelled",
  error: "Turn failed",
  max_steps: "Turn stopped: step limit reached",
  max_tokens: "Turn stopped: output token limit reached",
  refusal: "Turn ended: the model refused",
  budget: "Turn stopped: budget reached"
}

interface Props {
  readonly api: Api
  readonly sessionId: string
  readonly block: Block
  readonly review: MemoryReview["review"]
  /** The facts of the turn a turn end closes. */
  readonly stats: TurnStats | undefined
  /** On the end of a failed last turn: sends its prompt again. */
  readonly onRetry?: (() => void) | undefined
}

/** A compaction: its summary by sections, the files the log says changed, and the events it replaced (the model no longer sees them). */
const CompactionView = ({ compaction, summary }: { readonly compaction: CompactionNote; readonly summary: string }) => (
  <>
    <details class="compaction-summary">
      <summary>Summary{compaction.pieces === undefined || compaction.pieces < 2 ? "" : ` (written in ${compaction.pieces} pieces)`}</summary>
      {compaction.sections === undefined ? (
        <pre>{summary}</pre>
      ) : (
        <dl>
          {summarySectionHeadings.map(([key, name]) =>
            compaction.sections?.[key] === "" ? null : (
              <div key={key}>
                <dt>{name}</dt>
                <dd>
                  <pre>{compaction.sections?.[key]}</pre>
                </dd>
              </div>
            )
          )}
        </dl>
      )}
      {compaction.changedFiles === undefined ? null : (
        <p class="changed-files">Files changed (from the log): {compaction.changedFiles.length === 0 ? "none" : compaction.changedFiles.join(", ")}</p>
      )}
    </details>
    <details class="compaction-replaced">
      <summary>
        Events #{compaction.from}–#{compaction.through} it replaced ({compaction.replaced.length})
      </summary>
      <ol>
        {compaction.replaced.map((line, i) => (
          <li key={i}>{line}</li>
        ))}
      </ol>
    </details>
  </>
)

/** A subagent's own session, followed live while it is shown: the same blocks as any timeline. */
const ChildTimeline = ({ api, sessionId, review }: { readonly api: Api; readonly sessionId: string; readonly review: Props["review"] }) => {
  const [state, setState] = useState(() => emptyTimeline(sessionId))
  useEffect(() => api.fork(follow(emptyTimeline(sessionId), { onState: setState, onConnection: () => undefined })), [api, sessionId])
  return (
    <div class="subagent-timeline" data-session-id={sessionId}>
      {state.blocks.map((block) => (
        <BlockView key={block.sequence} api={api} sessionId={sessionId} block={block} review={review} stats={undefined} />
      ))}
    </div>
  )
}

/** A subagent's session under the note of its start, opened on demand (followed only while open). */
const SubagentView = ({ api, child, review }: { readonly api: Api; readonly child: NonNullable<NoteBlock["child"]>; readonly review: Props["review"] }) => {
  const [open, setOpen] = useState(false)
  return (
    <details class="subagent" onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>{child.agent}'s session</summary>
      {open ? <ChildTimeline api={api} sessionId={child.sessionId} review={review} /> : null}
    </details>
  )
}

/** A session note; a proposed memory can be reviewed right here while the log says it is pending. */
const NoteView = ({ api, note, review }: { readonly api: Api; readonly note: NoteBlock; readonly review: Props["review"] }) => {
  const pending = note.candidate?.status === "pending" ? note.candidate : undefined
  return (
    <div class={`block note ${note.tone} ${note.topic}`} data-candidate-id={note.candidate?.id}>
      <span class="text">{note.text}</span>
      {pending === undefined ? null : <ReviewButtons candidateId={pending.id} review={review} />}
      {note.compaction === undefined ? (
        note.detail === undefined ? null : (
          <details>
            <summary>{note.topic === "hook" ? "Output" : note.topic === "subagent" ? "Why it stopped" : "Summary"}</summary>
            <pre>{note.detail}</pre>
          </details>
        )
      ) : (
        <CompactionView compaction={note.compaction} summary={note.detail ?? ""} />
      )}
      {note.child === undefined ? null : <SubagentView api={api} child={note.child} review={review} />}
    </div>
  )
}

/**
 * A failed turn, said once: what went wrong in words (the code in the tooltip), what the server
 * said about it, and Retry when it is the session's last turn.
 */
const FailedTurnEnd = ({ block, stats, onRetry }: { readonly block: TurnEndBlock; readonly stats: TurnStats | undefined; readonly onRetry: (() => void) | undefined }) => {
  const code = block.failure?.code ?? block.errorCode
  const detail = block.failure?.reason ?? block.message
  return (
    <div class="block turn-end error" role="alert">
      <span class="headline">
        <strong>Turn failed:</strong> <span title={code}>{failureWords(code)}</span>
      </span>
      {detail === undefined ? null : <span class="detail">{detail}</span>}
      {onRetry === undefined ? null : (
        <button type="button" class="retry" onClick={onRetry} title="Send this turn's prompt again">
          Retry
        </button>
      )}
      {stats === undefined ? null : <TurnSummary stats={stats} />}
    </div>
  )
}

const BlockContent = ({ api, sessionId, block, review, stats, onRetry }: Props) => {
  switch (block._tag) {
    case "user":
      return (
        <div class="block user">
          <div class="who">
            you{block.mode === "steer" ? <span class="badge">steer</span> : null}
          </div>
          <div class="content">{block.content}</div>
        </div>
      )
    case "text":
      return (
        <div class={block.streaming ? "block answer streaming" : "block answer"}>
          <Markdown text={block.text} streaming={block.streaming} />
        </div>
      )
    case "thinking":
      return (
        <details class="block thinking">
          <summary>{block.streaming ? "Thinking…" : "Thought"}</summary>
          {block.redacted && block.text === "" ? <div class="content">(redacted by the provider)</div> : <Markdown text={block.text} streaming={block.streaming} />}
        </details>
      )
    case "tool":
      return <ToolCallView api={api} sessionId={sessionId} tool={block} />
    case "failure":
      // Only while its turn closes: the turn's end then says it.
      return (
        <div class="block failure" role="alert">
          <strong>The model request failed:</strong> <span title={block.code}>{failureWords(block.code)}</span>{" "}
          <span class="detail">{block.reason}</span>
        </div>
      )
    case "note":
      return <NoteView api={api} note={block} review={review} />
    case "turnEnd":
      return block.stopReason === "error" ? (
        <FailedTurnEnd block={block} stats={stats} onRetry={onRetry} />
      ) : (
        <div class={`block turn-end ${block.stopReason}`}>
          {stopLabels[block.stopReason] ?? block.stopReason}
          {block.message === undefined ? null : <span class="message">{block.message}</span>}
          {stats === undefined ? null : <TurnSummary stats={stats} />}
        </div>
      )
  }
}

/** A block renders again only when it or its turn's facts changed: the streaming block, not the whole timeline. */
export const BlockView = pure(BlockContent)
