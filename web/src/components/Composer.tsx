import { useState } from "preact/hooks"
import type { MessageMode } from "../../../src/domain/events.js"
import type { PermissionMode } from "../../../src/domain/permissions.js"
import { ModelPicker, ModeSwitch } from "./SessionSettings.js"
import { type Api, describe, isUnreachable } from "../api.js"
import { loadDraft, saveDraft } from "../drafts.js"

/**
 * Idle: a message starts a turn. Running: it either waits for the next turn (queue) or is
 * read at the running turn's next step (steer). What is typed is kept per session until sent.
 * Beside the send buttons: the session's mode and model, each changed at once.
 */
interface Props {
  readonly api: Api
  readonly sessionId: string
  readonly running: boolean
  /** The session's permission mode and model now (unknown until the stream says). */
  readonly mode: PermissionMode | undefined
  readonly model: string | undefined
  /** Models to suggest in the picker. */
  readonly modelChoices: ReadonlyArray<string>
}

export const Composer = ({ api, sessionId, running, mode, model, modelChoices }: Props) => {
  const [text, setTextNow] = useState(() => loadDraft(sessionId))
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | undefined>(undefined)
  const setText = (next: string) => {
    setTextNow(next)
    saveDraft(sessionId, next)
  }
  const send = async (mode: MessageMode) => {
    if (text.trim() === "") return
    setBusy(true)
    const result = await api.call((client) => client.Prompt({ sessionId, content: text, mode, client: "web" }))
    setBusy(false)
    if (result._tag === "Left") {
      // The page's banner says why when nothing answers; here only what became of the text.
      return setError(isUnreachable(result.left) ? "Not sent: your text is kept; send it again once the server answers." : describe(result.left))
    }
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
        rows={2}
        placeholder={running ? "Steer the running turn, or queue a message for the next one" : "Ask something (Ctrl+Enter to send)"}
        value={text}
        onInput={(e) => setText(e.currentTarget.value)}
        onKeyDown={onKeyDown}
      />
      <div class="actions">
        <ModeSwitch api={api} sessionId={sessionId} mode={mode} />
        <ModelPicker api={api} sessionId={sessionId} model={model} choices={modelChoices} />
        <span class="spacer" />
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
