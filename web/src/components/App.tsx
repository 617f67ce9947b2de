import { useEffect, useMemo, useState } from "preact/hooks"
import { makeApi } from "../api.js"
import { forgetToken, takeToken } from "../token.js"
import { Workspace } from "./Workspace.js"

/** Without a token nothing works: say where to get one. */
const NoToken = ({ refused }: { readonly refused: boolean }) => (
  <main class="no-token">
    <h1>custom-agent</h1>
    {refused ? <p class="error">The server refused the token this page had (it may have restarted with a new one).</p> : null}
    <p>
      This page needs the access token of the server. Start it with <code>custom-agent serve</code> and open the link it
      prints:
    </p>
    <pre>{`custom-agent is serving on http://127.0.0.1:7420\nopen http://127.0.0.1:7420/#token=…`}</pre>
  </main>
)

export const App = () => {
  const [token, setToken] = useState(takeToken)
  const [refused, setRefused] = useState(false)
  // A new link pasted into this tab only changes the fragment: no reload, so listen for it.
  useEffect(() => {
    const onHash = () => {
      const next = takeToken()
      if (next === undefined) return
      setRefused(false)
      setToken(next)
    }
    addEventListener("hashchange", onHash)
    return () => removeEventListener("hashchange", onHash)
  }, [])
  const api = useMemo(
    () =>
      token === undefined
        ? undefined
        : makeApi(token, () => {
            forgetToken()
            setRefused(true)
            setToken(undefined)
          }),
    [token]
  )
  useEffect(() => (api === undefined ? undefined : api.dispose), [api])
  return api === undefined ? <NoToken refused={refused} /> : <Workspace api={api} />
}
