import { useState } from "preact/hooks"
import type { MessageMode } from "../../../src/domain/events.js"
import { type Api, describe } from "../api.js"

/**
 * Idle: a message starts a turn. Running: it either waits for the next turn (queue) or is
 * read at the running turn's next step (steer).
 */
export const Composer = ({ api, sessionId, running }: { readonly api: Api; readonly sessionId: string; readonly running: boolean }) => {
  const [text, setText] = useState("")
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | undefined>(undefined)
  const send = async (mode: MessageMode) => {
    if (text.trim() === "") return
    setBusy(true)
    const result = await api.call((client) => client.Prompt({ sessionId, content: text, mode }))
    setBusy(false)
    if (result._tag === "Left") return setError(describe(result.left))
    setError(undefined)
    setText("")
  }
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault()
      void send("queue")
    }
  }
  const empty = text.trim() === ""
  return (
    <form class="composer" onSubmit={(e) => e.preventDefault()}>
      <textarea
        name="prompt"
        rows={3}
        placeholder={running ? "Steer the running turn, or queue a message for the next one" : "Ask something (Ctrl+Enter to send)"}
        value={text}
        onInput={(e) => setText(e.currentTarget.value)}
        onKeyDown={onKeyDown}
      />
      <div class="actions">
        {running ? (
          <>
            <button type="button" class="steer" disabled={busy || empty} onClick={() => send("steer")} title="Read at the next step of the running turn">
              Steer
            </button>
            <button type="button" class="primary" disabled={busy || empty} onClick={() => send("queue")} title="Start a turn when this one ends">
              Queue
            </button>
          </>
        ) : (
          <button type="button" class="primary" disabled={busy || empty} onClick={() => send("queue")}>
            Send
          </button>
        )}
      </div>
      {error === undefined ? null : <p class="error">{error}</p>}
    </form>
  )
}
