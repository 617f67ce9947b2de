import { useCallback, useEffect, useRef, useState } from "preact/hooks"
import { type Answer, type Api, describe } from "./api.js"
import { type ActionOutcome, outcomeOf } from "./memory.js"

export type RememberedAnswer = Answer<"ListRememberedAnswers">[number]

export interface RememberedAnswers {
  /** The answers in force, of every workspace, newest first; undefined until the first answer. */
  readonly answers: ReadonlyArray<RememberedAnswer> | undefined
  readonly error: string | undefined
  readonly refresh: () => void
  readonly revoke: (id: string) => Promise<ActionOutcome>
}

/** Sessions answer "always" while the panel is open, and the CLI revokes: the list is polled while it shows. */
const refreshMs = 5_000

/** The remembered answers panel's data: listed from the host, revoked as this page (`rpc:web` in the approvals file). */
export const useRememberedAnswers = (api: Api): RememberedAnswers => {
  const [answers, setAnswers] = useState<ReadonlyArray<RememberedAnswer> | undefined>(undefined)
  const [error, setError] = useState<string | undefined>(undefined)
  // Refreshes overlap (poll, revoke): only the newest request may set the list.
  const latest = useRef(0)

  const refresh = useCallback(() => {
    const request = ++latest.current
    void api
      .call((client) => client.ListRememberedAnswers({}))
      .then((result) => {
        if (request !== latest.current) return
        if (result._tag === "Left") return setError(describe(result.left))
        setError(undefined)
        setAnswers([...result.right].sort((a, b) => b.createdAt.localeCompare(a.createdAt)))
      })
  }, [api])

  useEffect(() => {
    refresh()
    const timer = setInterval(refresh, refreshMs)
    return () => clearInterval(timer)
  }, [refresh])

  const revoke = useCallback(
    async (id: string) => {
      const result = await api.call((client) => client.RevokeRememberedAnswer({ id, by: "web" }))
      refresh()
      return outcomeOf(result, "Already revoked elsewhere.", "RememberedAnswerNotFound")
    },
    [api, refresh]
  )

  return { answers, error, refresh, revoke }
}
