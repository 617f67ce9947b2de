import { useEffect, useRef, useState } from "preact/hooks"
import type { SessionListItem } from "../../../src/domain/host.js"
import { TITLE_MAX_LENGTH } from "../../../src/domain/session-title.js"
import { type Api, describe } from "../api.js"
import { linkTo, type Route } from "../route.js"

interface Props {
  readonly api: Api
  readonly session: SessionListItem
  /** Levels under the session that started it (a subagent's): 0 for a session of its own. */
  readonly depth: number
  readonly selected: boolean
  readonly onNavigate: (route: Route) => void
}

/** Who the log says renamed or archived it. */
const by = "web"

const when = (iso: string) => new Date(iso).toLocaleString()

const statusTitles = {
  idle: "Nothing runs",
  running: "A turn runs",
  interrupted: "A turn never ended: the process running it stopped"
} as const

/** One session in the list: a link to it, its status, and renaming and archiving in place. */
export const SessionRow = ({ api, session, depth, selected, onNavigate }: Props) => {
  const [draft, setDraft] = useState<string | undefined>(undefined)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | undefined>(undefined)
  const { sessionId, title, archived, status } = session
  const name = title ?? sessionId
  const editing = draft !== undefined
  const input = useRef<HTMLInputElement>(null)
  useEffect(() => {
    if (editing) input.current?.focus()
  }, [editing])

  // The list updates from the server's push once the change is recorded: nothing to patch here.
  const run = async (action: "rename" | "archive") => {
    setBusy(true)
    const result = await api.call((client) =>
      action === "rename" ? client.RenameSession({ sessionId, title: draft ?? "", by }) : client.ArchiveSession({ sessionId, archived: !archived, by })
    )
    setBusy(false)
    if (result._tag === "Left") return setError(describe(result.left))
    setError(undefined)
    if (action === "rename") setDraft(undefined)
  }

  const rename = (event: Event) => {
    event.preventDefault()
    void run("rename")
  }

  return (
    <li
      class={`session-row${archived ? " archived" : ""}${depth > 0 ? " subagent" : ""}`}
      data-session-id={sessionId}
      style={depth > 0 ? { marginLeft: `${depth * 14}px` } : undefined}
    >
      {draft === undefined ? (
        <a class={selected ? "session selected" : "session"} {...linkTo({ _tag: "session", sessionId }, onNavigate)}>
          <span class="title">
            <span class={`status-badge is-${status}`} title={statusTitles[status]}>
              {status}
            </span>
            {name}
          </span>
          <span class="cwd">{session.cwd ?? ""}</span>
          <span class="updated">
            {when(session.updatedAt)}
            {archived ? " · archived" : ""}
          </span>
        </a>
      ) : (
        <form class="rename-form" onSubmit={rename}>
          <input
            name="title"
            aria-label={`New title of ${name}`}
            value={draft}
            maxLength={TITLE_MAX_LENGTH}
            onInput={(e) => setDraft(e.currentTarget.value)}
            ref={input}
          />
          <button type="submit" disabled={busy || draft.trim() === ""}>
            Save
          </button>
          <button type="button" onClick={() => setDraft(undefined)}>
            Cancel
          </button>
        </form>
      )}
      {draft === undefined ? (
        <span class="session-actions">
          <button type="button" class="rename" aria-label={`Rename ${name}`} disabled={busy} onClick={() => setDraft(title ?? "")}>
            Rename
          </button>
          <button type="button" class="archive" aria-label={`${archived ? "Unarchive" : "Archive"} ${name}`} disabled={busy} onClick={() => void run("archive")}>
            {archived ? "Unarchive" : "Archive"}
          </button>
        </span>
      ) : null}
      {error === undefined ? null : <p class="error">{error}</p>}
    </li>
  )
}
