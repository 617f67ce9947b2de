import type { Api } from "../api.js"
import type { Block } from "../timeline.js"
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
}

export const BlockView = ({ api, sessionId, block }: Props) => {
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
      return <div class={`block note ${block.tone}`}>{block.text}</div>
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
