import { useEffect, useMemo, useRef, useState } from "preact/hooks"
import type { SessionListItem } from "../../../src/domain/host.js"
import { type Api, unreachableText } from "../api.js"
import { useMemoryReview } from "../memory.js"
import { pushRoute, type Route, routeInUrl } from "../route.js"
import { useQuestionNotices } from "../notify.js"
import { makeRetrySignal } from "../retry.js"
import { sessionTitle } from "../session-list.js"
import { type ListProblem, watchSessions } from "../watch-sessions.js"
import { MemoryPanel } from "./MemoryPanel.js"
import { PermissionsPanel } from "./PermissionsPanel.js"
import { SessionList } from "./SessionList.js"
import { SessionPane } from "./SessionPane.js"

/** What the narrow screen's top bar names: the open session's title, or the view. */
const placeOf = (route: Route, sessions: ReadonlyArray<SessionListItem> | undefined): string => {
  switch (route._tag) {
    case "home":
      return "custom-agent"
    case "memory":
      return "Memory"
    case "permissions":
      return "Permissions"
    case "session":
      return sessionTitle(sessions, route.sessionId)
  }
}

/** While nothing answers: said once for the whole page, with a way to try at once. */
const ServerBanner = ({ onRetry }: { readonly onRetry: () => void }) => (
  <div class="server-banner" role="alert">
    <span>
      {unreachableText} Trying again… Nothing you typed is lost.
    </span>
    <button type="button" onClick={onRetry}>
      Retry now
    </button>
  </div>
)

export const Workspace = ({ api }: { readonly api: Api }) => {
  const [sessions, setSessions] = useState<ReadonlyArray<SessionListItem> | undefined>(undefined)
  const [listProblem, setListProblem] = useState<ListProblem | undefined>(undefined)
  const retry = useMemo(makeRetrySignal, [])
  const otherModels = useMemo(() => (sessions ?? []).map((s) => s.model), [sessions])
  const [route, setRoute] = useState(routeInUrl)
  // Only narrow screens hide the sidebar (style.css); there it opens over the page on request.
  const [sidebarOpen, setSidebarOpen] = useState(false)
  const memory = useMemoryReview(api)

  // Other clients start, finish, rename and archive sessions: the server pushes each change.
  useEffect(() => api.fork(watchSessions({ onSessions: setSessions, onProblem: setListProblem, retry })), [api])
  useEffect(() => {
    const onPop = () => setRoute(routeInUrl())
    addEventListener("popstate", onPop)
    return () => removeEventListener("popstate", onPop)
  }, [])

  const navigate = (next: Route) => {
    pushRoute(next)
    setRoute(next)
    setSidebarOpen(false)
  }
  useQuestionNotices(sessions, (sessionId) => navigate({ _tag: "session", sessionId }))

  // A session deleted (by any client) while open here leaves nothing to show: back to the start.
  const listed = useRef<ReadonlySet<string>>(new Set())
  useEffect(() => {
    if (sessions === undefined) return
    const now = new Set(sessions.map((s) => s.sessionId))
    if (route._tag === "session" && listed.current.has(route.sessionId) && !now.has(route.sessionId)) navigate({ _tag: "home" })
    listed.current = now
  }, [sessions])

  const main = () => {
    switch (route._tag) {
      case "home":
        return (
          <main class="pane empty">
            {/* Only one of the two shows: the sidebar is on the left of a wide screen, behind a button on a narrow one. */}
            <p class="wide-only">Pick a session on the left, or start a new one.</p>
            <p class="narrow-only">
              Pick a session, or start a new one:{" "}
              <button type="button" onClick={() => setSidebarOpen(true)}>
                ☰ Sessions
              </button>
            </p>
          </main>
        )
      case "memory":
        return <MemoryPanel review={memory} sessions={sessions} onOpen={navigate} />
      case "permissions":
        return <PermissionsPanel api={api} sessions={sessions} onOpen={navigate} />
      case "session":
        return (
          <SessionPane
            key={route.sessionId}
            api={api}
            sessionId={route.sessionId}
            listed={sessions?.find((s) => s.sessionId === route.sessionId)}
            events={route.events}
            onNavigate={navigate}
            review={memory.review}
            onMemoryNote={memory.refresh}
            retry={retry}
            otherModels={otherModels}
          />
        )
    }
  }

  return (
    <div class={sidebarOpen ? "workspace sidebar-open" : "workspace"}>
      {listProblem?.unreachable === true ? <ServerBanner onRetry={retry.now} /> : null}
      <header class="topbar">
        <button type="button" class="sidebar-toggle" aria-controls="sessions" aria-expanded={sidebarOpen} onClick={() => setSidebarOpen(!sidebarOpen)}>
          ☰ Sessions
        </button>
        <span class="here">{placeOf(route, sessions)}</span>
      </header>
      {sidebarOpen ? <div class="scrim" onClick={() => setSidebarOpen(false)} /> : null}
      <SessionList
        api={api}
        sessions={sessions}
        problem={listProblem?.unreachable === false ? listProblem.message : undefined}
        route={route}
        pendingMemories={memory.candidates?.length}
        onNavigate={navigate}
      />
      {main()}
    </div>
  )
}
