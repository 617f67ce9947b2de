import { useEffect, useMemo, useState } from "preact/hooks"
import { makeApi } from "../api.js"
import { forgetToken, takeToken } from "../token.js"
import { Workspace } from "./Workspace.js"

/**
 * Without a token nothing works: say where to get one. The page was loaded from the server
 * itself, so its own origin is the address (and port) the server prints.
 */
const NoToken = ({ refused }: { readonly refused: boolean }) => (
  <main class="no-token">
    <h1>custom-agent</h1>
    {refused ? <p class="error">The server refused the token this page had (it may have restarted with a new one).</p> : null}
    <p>
      This page needs the access token of the server at <code>{location.origin}</code>. Open the link <code>custom-agent serve</code>{" "}
      printed when it started:
    </p>
    <pre>{`custom-agent is serving on ${location.origin}\nopen ${location.origin}/#token=…`}</pre>
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
