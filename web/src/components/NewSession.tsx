import { useState } from "preact/hooks"
import { type Api, describe } from "../api.js"

interface Props {
  readonly api: Api
  readonly defaultCwd: string
  readonly onOpen: (sessionId: string) => void
}

/** There is no API for the server's own directory: start from the latest session's, else "/". */
export const NewSession = ({ api, defaultCwd, onOpen }: Props) => {
  const [cwd, setCwd] = useState(defaultCwd)
  const [title, setTitle] = useState("")
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | undefined>(undefined)
  const create = async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    const trimmed = title.trim()
    const result = await api.call((client) =>
      client.CreateSession({ cwd: cwd.trim(), client: "web", ...(trimmed === "" ? {} : { title: trimmed }) })
    )
    setBusy(false)
    if (result._tag === "Left") return setError(describe(result.left))
    setError(undefined)
    onOpen(result.right.sessionId)
  }
  return (
    <form class="new-session" onSubmit={create}>
      <label>
        Working directory
        <input name="cwd" required value={cwd} onInput={(e) => setCwd(e.currentTarget.value)} />
      </label>
      <label>
        Title (optional)
        <input name="title" value={title} onInput={(e) => setTitle(e.currentTarget.value)} />
      </label>
      <button type="submit" disabled={busy || cwd.trim() === ""}>
        Create session
      </button>
      {error === undefined ? null : <p class="error">{error}</p>}
    </form>
  )
}
