import { useEffect, useRef, useState } from "preact/hooks"
import type { SessionListItem } from "../../../src/domain/host.js"
import { TITLE_MAX_LENGTH } from "../../../src/domain/session-title.js"
import { showInvisible } from "../../../src/domain/visible-text.js"
import { type Api, describe } from "../api.js"
import { linkTo, type Route } from "../route.js"
import { rowStatus, type ShownStatus, statusLabels } from "../session-list.js"
import { When } from "./When.js"

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

const statusTitles: Readonly<Record<ShownStatus, string>> = {
  waiting: "A turn waits for your answer to a permission question",
  running: "A turn runs",
  interrupted: "A turn never ended: the process running it stopped",
  failed: "The last turn failed",
  idle: "Nothing runs"
}

/** Rename, archive and delete, out of the way until asked for: a small menu per row. */
const RowMenu = ({ name, archived, busy, onRename, onArchive, onDelete }: {
  readonly name: string
  readonly archived: boolean
  readonly busy: boolean
  readonly onRename: () => void
  readonly onArchive: () => void
  readonly onDelete: () => void
}) => {
  const menu = useRef<HTMLDetailsElement>(null)
  const choose = (action: () => void) => () => {
    if (menu.current !== null) menu.current.open = false
    action()
  }
  return (
    <details class="row-menu" ref={menu}>
      <summary aria-label={`Actions for ${name}`} title="Rename, archive or delete">
        ⋯
      </summary>
      <div class="menu" role="menu" aria-label={`Actions for ${name}`}>
        <button type="button" role="menuitem" aria-label={`Rename ${name}`} disabled={busy} onClick={choose(onRename)}>
          Rename
        </button>
        <button type="button" role="menuitem" aria-label={`${archived ? "Unarchive" : "Archive"} ${name}`} disabled={busy} onClick={choose(onArchive)}>
          {archived ? "Unarchive" : "Archive"}
        </button>
        <button type="button" role="menuitem" aria-label={`Delete ${name}`} disabled={busy} onClick={choose(onDelete)}>
          Delete
        </button>
      </div>
    </details>
  )
}

/** One session in the list: a link to it with its status and last activity, and a menu to rename, archive or delete it. */
export const SessionRow = ({ api, session, depth, selected, onNavigate }: Props) => {
  const [draft, setDraft] = useState<string | undefined>(undefined)
  /** Delete asks once more, in the row: it cannot be undone. */
  const [confirming, setConfirming] = useState(false)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | undefined>(undefined)
  const { sessionId, title, archived } = session
  const status = rowStatus(session)
  const name = title ?? sessionId
  const editing = draft !== undefined
  const input = useRef<HTMLInputElement>(null)
  useEffect(() => {
    if (editing) input.current?.focus()
  }, [editing])

  // The list updates from the server's push once the change is recorded: nothing to patch here.
  const run = async (action: "rename" | "archive" | "delete") => {
    setBusy(true)
    const result = await api.call((client) =>
      action === "rename"
        ? client.RenameSession({ sessionId, title: draft ?? "", by })
        : action === "archive"
          ? client.ArchiveSession({ sessionId, archived: !archived, by })
          : client.DeleteSession({ sessionId, by })
    )
    setBusy(false)
    setConfirming(false)
    if (result._tag === "Left") return setError(describe(result.left))
    setError(undefined)
    if (action === "rename") setDraft(undefined)
    // The pane of a session that is gone has nothing to show.
    if (action === "delete" && selected) onNavigate({ _tag: "home" })
  }

  const rename = (event: Event) => {
    event.preventDefault()
    void run("rename")
  }

  return (
    <li
      class={`session-row${archived ? " archived" : ""}${depth > 0 ? " subagent" : ""}`}
      data-session-id={sessionId}
      data-status={status}
      style={depth > 0 ? { marginLeft: `${depth * 14}px` } : undefined}
    >
      {draft === undefined ? (
        <>
          <a class={selected ? "session selected" : "session"} {...linkTo({ _tag: "session", sessionId }, onNavigate)}>
            <span class="title">
              <span class={`status-badge is-${status}`} title={statusTitles[status]}>
                {statusLabels[status]}
              </span>
              {showInvisible(name)}
            </span>
            <span class="facts">
              <span class="cwd">
                {showInvisible(session.cwd ?? "")}
                {archived ? " · archived" : ""}
              </span>
              <span class="updated">
                <When iso={session.updatedAt} more="(last activity)" />
              </span>
            </span>
          </a>
          <RowMenu
            name={name}
            archived={archived}
            busy={busy}
            onRename={() => setDraft(title ?? "")}
            onArchive={() => void run("archive")}
            onDelete={() => setConfirming(true)}
          />
          {confirming ? (
            <div class="confirm-delete" role="alertdialog" aria-label={`Delete ${name}?`}>
              <span>Delete for good, with its subagent sessions? Archive hides it instead.</span>
              <button type="button" class="danger" disabled={busy} onClick={() => void run("delete")}>
                Delete
              </button>
              <button type="button" disabled={busy} onClick={() => setConfirming(false)}>
                Cancel
              </button>
            </div>
          ) : null}
        </>
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
      {error === undefined ? null : <p class="error">{error}</p>}
    </li>
  )
}
