import { useState } from "preact/hooks"
import { PermissionMode } from "../../../src/domain/permissions.js"
import { type Api, describe } from "../api.js"

const modeTitles: Readonly<Record<PermissionMode, string>> = {
  default: "Reads in the workspace run; everything else asks",
  plan: "Only reads: anything else is denied",
  "accept-edits": "Edits inside the workspace run without asking",
  bypass: "Everything runs without asking"
}

interface ModeProps {
  readonly api: Api
  readonly sessionId: string
  /** The session's mode now; unknown until the stream says. */
  readonly mode: PermissionMode | undefined
}

/**
 * The session's permission mode, changed at once (recorded in its log as set by `web`; a running
 * turn checks its next tool call under it). `bypass` asks first: it lets every call run.
 */
export const ModeSwitch = ({ api, sessionId, mode }: ModeProps) => {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | undefined>(undefined)
  const change = async (event: Event) => {
    const select = event.currentTarget
    if (!(select instanceof HTMLSelectElement)) return
    const next = PermissionMode.literals.find((literal) => literal === select.value)
    if (next === undefined || next === mode) return
    if (next === "bypass" && !confirm("Bypass lets every tool call run without asking, shell commands included. Switch this session to bypass?")) {
      select.value = mode ?? "default"
      return
    }
    setBusy(true)
    const result = await api.call((client) => client.SetMode({ sessionId, mode: next, by: "web" }))
    setBusy(false)
    setError(result._tag === "Left" ? describe(result.left) : undefined)
  }
  return (
    <label class="setting mode" title={mode === undefined ? undefined : modeTitles[mode]}>
      <span class="label">Mode</span>
      <select name="mode" aria-label="Permission mode" value={mode ?? "default"} disabled={busy || mode === undefined} onChange={change}>
        {PermissionMode.literals.map((literal) => (
          <option key={literal} value={literal} title={modeTitles[literal]}>
            {literal}
          </option>
        ))}
      </select>
      {error === undefined ? null : <span class="error">{error}</span>}
    </label>
  )
}

interface ModelProps {
  readonly sessionId: string
  /** The session's model now. */
  readonly model: string | undefined
  readonly choices: ReadonlyArray<string>
  /** What was picked for the next message ("" for the session's own). */
  readonly picked: string
  readonly onPick: (model: string) => void
}

/**
 * The model for the next message: the API changes a session's model only with a prompt, so the
 * pick is sent with the next message, and from then on the session keeps it (recorded).
 */
export const ModelPicker = ({ sessionId, model, choices, picked, onPick }: ModelProps) => {
  const listId = `models-${sessionId}`
  const pending = picked.trim() !== "" && picked.trim() !== model
  return (
    <label class={pending ? "setting model pending" : "setting model"} title="Takes effect with your next message, which makes it the session's model">
      <span class="label">Model</span>
      <input
        name="model"
        aria-label="Model for the next message"
        list={listId}
        placeholder={model ?? "the server's"}
        value={picked}
        onInput={(e) => onPick(e.currentTarget.value)}
      />
      <datalist id={listId}>
        {choices.map((choice) => (
          <option key={choice} value={choice} />
        ))}
      </datalist>
      {pending ? <span class="hint">from your next message</span> : null}
    </label>
  )
}
