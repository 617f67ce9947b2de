import { useState } from "preact/hooks"
import type { SessionListItem } from "../../../src/domain/host.js"
import { type Api, describe } from "../api.js"
import { linkTo, type Route } from "../route.js"

interface Props {
  readonly api: Api
  /** Newest first; undefined while loading. */
  readonly sessions: ReadonlyArray<SessionListItem> | undefined
  readonly error: string | undefined
  readonly route: Route
  /** Memory candidates waiting for review; undefined while unknown. */
  readonly pendingMemories: number | undefined
  readonly onNavigate: (route: Route) => void
  readonly onCreated: () => void
}

type NewSessionProps = Pick<Props, "api" | "onCreated"> & {
  readonly defaultCwd: string
  readonly onOpen: (sessionId: string) => void
}

const when = (iso: string) => new Date(iso).toLocaleString()

/** There is no API for the server's own directory: start from the latest session's, else "/". */
const NewSession = ({ api, defaultCwd, onOpen, onCreated }: NewSessionProps) => {
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
    onCreated()
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

export const SessionList = ({ api, sessions, error, route, pendingMemories, onNavigate, onCreated }: Props) => {
  const [creating, setCreating] = useState(false)
  const selected = route._tag === "session" ? route.sessionId : undefined
  const pending = pendingMemories ?? 0
  return (
    <nav class="sessions">
      <header>
        <h1>custom-agent</h1>
        <button type="button" class="new" onClick={() => setCreating(!creating)} aria-expanded={creating}>
          {creating ? "Close" : "New session"}
        </button>
      </header>
      {creating ? (
        <NewSession
          api={api}
          defaultCwd={sessions?.find((s) => s.cwd !== undefined)?.cwd ?? "/"}
          onOpen={(sessionId) => {
            setCreating(false)
            onNavigate({ _tag: "session", sessionId })
          }}
          onCreated={onCreated}
        />
      ) : null}
      <a class={route._tag === "memory" ? "nav memory selected" : "nav memory"} {...linkTo({ _tag: "memory" }, onNavigate)}>
        Memory
        {pending === 0 ? null : (
          <span class="count" title={`${pending} memory candidate(s) waiting for review`}>
            {pending}
          </span>
        )}
      </a>
      <h3>Sessions</h3>
      {error === undefined ? null : <p class="error">{error}</p>}
      {sessions === undefined ? <p class="muted">Loading sessions…</p> : null}
      {sessions?.length === 0 ? <p class="muted">No sessions yet.</p> : null}
      <ul>
        {sessions?.map((s) => (
          <li key={s.sessionId}>
            <a
              class={s.sessionId === selected ? "session selected" : "session"}
              data-session-id={s.sessionId}
              {...linkTo({ _tag: "session", sessionId: s.sessionId }, onNavigate)}
            >
              <span class="title">
                {s.running ? <span class="running-dot" title="running" /> : null}
                {s.title ?? s.sessionId}
              </span>
              <span class="cwd">{s.cwd ?? ""}</span>
              <span class="updated">{when(s.updatedAt)}</span>
            </a>
          </li>
        ))}
      </ul>
    </nav>
  )
}
