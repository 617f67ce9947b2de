import { useState } from "preact/hooks"
import { type Api, describe } from "./api.js"
import type { Route } from "./route.js"

/** Forks the session at a sequence and opens the new one; a failure is shown where the fork was asked for. */
export const useFork = (api: Api, sessionId: string, onNavigate: (route: Route) => void) => {
  const [forking, setForking] = useState(false)
  const [error, setError] = useState<string | undefined>(undefined)
  const fork = async (atSequence: number) => {
    setForking(true)
    setError(undefined)
    const result = await api.call((client) => client.ForkSession({ sessionId, atSequence, by: "web" }))
    setForking(false)
    if (result._tag === "Left") return setError(describe(result.left))
    onNavigate({ _tag: "session", sessionId: result.right.sessionId })
  }
  return { forking, error, fork }
}
