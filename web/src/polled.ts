import type { Effect } from "effect"
import { useCallback, useEffect, useRef, useState } from "preact/hooks"
import { type Api, type Client, describe } from "./api.js"

export interface Polled<A> {
  /** The last answer; undefined until the first. */
  readonly value: A | undefined
  /** Why the last ask failed, in words; undefined once one succeeds. */
  readonly error: string | undefined
  /** Asks again now (after an action, say). */
  readonly refresh: () => void
}

/**
 * What another client may change while the page shows it (a review, a revoke), asked again
 * every `everyMs` while the component lives. Asks overlap (the poll, an action's refresh): only
 * the newest answer is kept.
 */
export const usePolled = <A, E>(api: Api, ask: (client: Client) => Effect.Effect<A, E>, everyMs: number): Polled<A> => {
  const [value, setValue] = useState<A | undefined>(undefined)
  const [error, setError] = useState<string | undefined>(undefined)
  const latest = useRef(0)

  const refresh = useCallback(() => {
    const request = ++latest.current
    void api.call(ask).then((result) => {
      if (request !== latest.current) return
      if (result._tag === "Left") return setError(describe(result.left))
      setError(undefined)
      setValue(result.right)
    })
  }, [api])

  useEffect(() => {
    refresh()
    const timer = setInterval(refresh, everyMs)
    return () => clearInterval(timer)
  }, [refresh])

  return { value, error, refresh }
}
