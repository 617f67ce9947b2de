import { useMemo, useState } from "preact/hooks"
import { underParents } from "../../../src/domain/session-tree.js"
import type { SessionListItem } from "../../../src/domain/host.js"
import type { Api } from "../api.js"
import { linkTo, type Route } from "../route.js"
import { visibleSessions } from "../session-list.js"
import { NewSession } from "./NewSession.js"
import { NotifyToggle } from "./NotifyToggle.js"
import { SessionRow } from "./SessionRow.js"

interface Props {
  readonly api: Api
  /** Newest first; undefined while loading. */
  readonly sessions: ReadonlyArray<SessionListItem> | undefined
  /** Why the list may be out of date, while it is. */
  readonly problem: string | undefined
  readonly route: Route
  /** Memory candidates waiting for review; undefined while unknown. */
  readonly pendingMemories: number | undefined
  readonly onNavigate: (route: Route) => void
}

export const SessionList = ({ api, sessions, problem, route, pendingMemories, onNavigate }: Props) => {
  const [creating, setCreating] = useState(false)
  const [search, setSearch] = useState("")
  const [showArchived, setShowArchived] = useState(false)
  const selected = route._tag === "session" ? route.sessionId : undefined
  const pending = pendingMemories ?? 0
  const shown = useMemo(() => (sessions === undefined ? undefined : visibleSessions(sessions, search, showArchived)), [sessions, search, showArchived])
  const hiddenArchived = sessions === undefined || showArchived ? 0 : sessions.filter((s) => s.archived).length
  return (
    <nav class="sessions" id="sessions">
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
      <a class={route._tag === "permissions" ? "nav permissions selected" : "nav permissions"} {...linkTo({ _tag: "permissions" }, onNavigate)}>
        Permissions
      </a>
      <h3>Sessions</h3>
      <div class="session-filters">
        <input
          type="search"
          name="session-search"
          aria-label="Search sessions"
          placeholder="Search title, directory or id"
          value={search}
          onInput={(e) => setSearch(e.currentTarget.value)}
        />
        <label class="show-archived">
          <input type="checkbox" name="show-archived" checked={showArchived} onChange={(e) => setShowArchived(e.currentTarget.checked)} />
          Show archived{hiddenArchived === 0 ? "" : ` (${hiddenArchived})`}
        </label>
      </div>
      <NotifyToggle />
      {problem === undefined ? null : <p class="error">{problem}</p>}
      {sessions === undefined ? <p class="muted">Loading sessions…</p> : null}
      {sessions?.length === 0 ? <p class="muted">No sessions yet.</p> : null}
      {sessions !== undefined && sessions.length > 0 && shown?.length === 0 ? <p class="muted">No session matches.</p> : null}
      <ul>
        {/* A subagent's session sits under the session that started it. */}
        {shown === undefined
          ? null
          : underParents(shown).map(({ row: s, depth }) => (
              <SessionRow key={s.sessionId} api={api} session={s} depth={depth} selected={s.sessionId === selected} onNavigate={onNavigate} />
            ))}
      </ul>
    </nav>
  )
}
