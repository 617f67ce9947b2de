import { useCallback, useMemo } from "preact/hooks"
import type { Answer, Api } from "./api.js"
import { type ActionOutcome, outcomeOf } from "./memory.js"
import { usePolled } from "./polled.js"

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
  const listed = usePolled(api, (client) => client.ListRememberedAnswers({}), refreshMs)
  const { refresh } = listed
  const answers = useMemo(() => (listed.value === undefined ? undefined : [...listed.value].sort((a, b) => b.createdAt.localeCompare(a.createdAt))), [listed.value])

  const revoke = useCallback(
    async (id: string) => {
      const result = await api.call((client) => client.RevokeRememberedAnswer({ id, by: "web" }))
      refresh()
      return outcomeOf(result, "Already revoked elsewhere.", "RememberedAnswerNotFound")
    },
    [api, refresh]
  )

  return { answers, error: listed.error, refresh, revoke }
}
