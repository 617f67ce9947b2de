import { useState } from "preact/hooks"
import { PermissionMode } from "../../../src/domain/permissions.js"
import { type Api, describe } from "../api.js"
import { modelToSet } from "../model-choices.js"

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
  readonly api: Api
  readonly sessionId: string
  /** The session's model now. */
  readonly model: string | undefined
  readonly choices: ReadonlyArray<string>
}

/**
 * The session's model, changed at once when a pick is committed (Enter, leaving the field, a
 * suggestion): recorded in its log as set by `web`, asked by the session's next turn (a turn
 * running meanwhile ends on the model it started with).
 */
export const ModelPicker = ({ api, sessionId, model, choices }: ModelProps) => {
  const listId = `models-${sessionId}`
  const [picked, setPicked] = useState("")
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | undefined>(undefined)
  const commit = async () => {
    const next = modelToSet(picked, model)
    if (next === undefined || busy) return
    setBusy(true)
    const result = await api.call((client) => client.SetModel({ sessionId, model: next, by: "web" }))
    setBusy(false)
    if (result._tag === "Left") return setError(describe(result.left))
    setError(undefined)
    // The placeholder says the session's model once its change arrives.
    setPicked("")
  }
  return (
    <label class="setting model" title="The model the session's next turn asks (a running turn ends on its own)">
      <span class="label">Model</span>
      <input
        name="model"
        aria-label="Session model"
        list={listId}
        placeholder={model ?? "the server's"}
        value={picked}
        disabled={busy}
        onInput={(e) => setPicked(e.currentTarget.value)}
        onChange={() => void commit()}
        onKeyDown={(e) => {
          if (e.key !== "Enter") return
          e.preventDefault()
          void commit()
        }}
      />
      <datalist id={listId}>
        {choices.map((choice) => (
          <option key={choice} value={choice} />
        ))}
      </datalist>
      {error === undefined ? null : <span class="error">{error}</span>}
    </label>
  )
}
