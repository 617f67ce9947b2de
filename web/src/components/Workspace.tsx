import { useCallback, useEffect, useState } from "preact/hooks"
import type { SessionListItem } from "../../../src/domain/host.js"
import { type Api, describe } from "../api.js"
import { useMemoryReview } from "../memory.js"
import { pushRoute, type Route, routeInUrl } from "../route.js"
import { MemoryPanel } from "./MemoryPanel.js"
import { SessionList } from "./SessionList.js"
import { SessionPane } from "./SessionPane.js"

/** Other clients may start or finish turns: the list is polled while the page is open. */
const listRefreshMs = 5_000

export const Workspace = ({ api }: { readonly api: Api }) => {
  const [sessions, setSessions] = useState<ReadonlyArray<SessionListItem> | undefined>(undefined)
  const [listError, setListError] = useState<string | undefined>(undefined)
  const [route, setRoute] = useState(routeInUrl)
  const memory = useMemoryReview(api)

  const refresh = useCallback(async () => {
    const result = await api.call((client) => client.ListSessions())
    if (result._tag === "Left") return setListError(describe(result.left))
    setListError(undefined)
    setSessions([...result.right].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt)))
  }, [api])

  useEffect(() => {
    void refresh()
    const timer = setInterval(() => void refresh(), listRefreshMs)
    const onPop = () => setRoute(routeInUrl())
    addEventListener("popstate", onPop)
    return () => {
      clearInterval(timer)
      removeEventListener("popstate", onPop)
    }
  }, [refresh])

  const navigate = (next: Route) => {
    pushRoute(next)
    setRoute(next)
  }

  const main = () => {
    switch (route._tag) {
      case "home":
        return (
          <main class="pane empty">
            <p>Pick a session on the left, or start a new one.</p>
          </main>
        )
      case "memory":
        return <MemoryPanel review={memory} sessions={sessions} onOpen={navigate} />
      case "session":
        return (
          <SessionPane
            key={route.sessionId}
            api={api}
            sessionId={route.sessionId}
            events={route.events}
            onNavigate={navigate}
            review={memory.review}
            onStatus={refresh}
            onMemoryNote={memory.refresh}
          />
        )
    }
  }

  return (
    <div class="workspace">
      <SessionList
        api={api}
        sessions={sessions}
        error={listError}
        route={route}
        pendingMemories={memory.candidates?.length}
        onNavigate={navigate}
        onCreated={refresh}
      />
      {main()}
    </div>
  )
}
