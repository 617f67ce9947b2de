import type { Api } from "../api.js"
import type { MemoryReview } from "../memory.js"
import type { Block, NoteBlock } from "../timeline.js"
import { ReviewButtons } from "./MemoryActions.js"
import { ToolCallView } from "./ToolCall.js"

const stopLabels: Record<string, string> = {
  final: "Turn ended",
  cancelled: "Turn cancelled",
  error: "Turn failed",
  max_steps: "Turn stopped: step limit reached",
  max_tokens: "Turn stopped: output token limit reached",
  refusal: "Turn ended: the model refused"
}

interface Props {
  readonly api: Api
  readonly sessionId: string
  readonly block: Block
  readonly review: MemoryReview["review"]
}

/** A session note; a proposed memory can be reviewed right here while the log says it is pending. */
const NoteView = ({ note, review }: { readonly note: NoteBlock; readonly review: Props["review"] }) => {
  const pending = note.candidate?.status === "pending" ? note.candidate : undefined
  return (
    <div class={`block note ${note.tone} ${note.topic}`} data-candidate-id={note.candidate?.id}>
      <span class="text">{note.text}</span>
      {pending === undefined ? null : <ReviewButtons candidateId={pending.id} review={review} />}
      {note.detail === undefined ? null : (
        <details>
          <summary>Summary</summary>
          <pre>{note.detail}</pre>
        </details>
      )}
    </div>
  )
}

export const BlockView = ({ api, sessionId, block, review }: Props) => {
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
          <div class="content">{block.text}</div>
        </div>
      )
    case "thinking":
      return (
        <details class="block thinking">
          <summary>{block.streaming ? "Thinking…" : "Thought"}</summary>
          <div class="content">{block.redacted && block.text === "" ? "(redacted by the provider)" : block.text}</div>
        </details>
      )
    case "tool":
      return <ToolCallView api={api} sessionId={sessionId} tool={block} />
    case "failure":
      return (
        <div class="block failure" role="alert">
          <strong>Model failed</strong> ({block.code}): {block.reason}
        </div>
      )
    case "note":
      return <NoteView note={block} review={review} />
    case "turnEnd": {
      const failed = block.stopReason === "error"
      return (
        <div class={`block turn-end ${block.stopReason}`} role={failed ? "alert" : undefined}>
          {stopLabels[block.stopReason] ?? block.stopReason}
          {block.errorCode === undefined ? null : <code>{block.errorCode}</code>}
          {block.message === undefined ? null : <span class="message">{block.message}</span>}
        </div>
      )
    }
  }
}
