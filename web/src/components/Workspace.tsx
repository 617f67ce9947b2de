import { useCallback, useEffect, useState } from "preact/hooks"
import type { SessionListItem } from "../../../src/domain/host.js"
import { type Api, describe } from "../api.js"
import { openInUrl, sessionInUrl } from "../route.js"
import { SessionList } from "./SessionList.js"
import { SessionPane } from "./SessionPane.js"

/** Other clients may start or finish turns: the list is polled while the page is open. */
const listRefreshMs = 5_000

export const Workspace = ({ api }: { readonly api: Api }) => {
  const [sessions, setSessions] = useState<ReadonlyArray<SessionListItem> | undefined>(undefined)
  const [listError, setListError] = useState<string | undefined>(undefined)
  const [selected, setSelected] = useState(sessionInUrl)

  const refresh = useCallback(async () => {
    const result = await api.call((client) => client.ListSessions())
    if (result._tag === "Left") return setListError(describe(result.left))
    setListError(undefined)
    setSessions([...result.right].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt)))
  }, [api])

  useEffect(() => {
    void refresh()
    const timer = setInterval(() => void refresh(), listRefreshMs)
    const onPop = () => setSelected(sessionInUrl())
    addEventListener("popstate", onPop)
    return () => {
      clearInterval(timer)
      removeEventListener("popstate", onPop)
    }
  }, [refresh])

  const open = (sessionId: string) => {
    openInUrl(sessionId)
    setSelected(sessionId)
  }

  return (
    <div class="workspace">
      <SessionList api={api} sessions={sessions} error={listError} selected={selected} onOpen={open} onCreated={refresh} />
      {selected === undefined ? (
        <main class="pane empty">
          <p>Pick a session on the left, or start a new one.</p>
        </main>
      ) : (
        <SessionPane key={selected} api={api} sessionId={selected} onStatus={refresh} />
      )}
    </div>
  )
}
