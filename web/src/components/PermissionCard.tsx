import { useState } from "preact/hooks"
import type { PermissionAnswer } from "../../../src/domain/host.js"
import { type Api, describe } from "../api.js"
import type { Ask } from "../timeline.js"
import { Diff, looksLikeDiff } from "./Diff.js"

/** The answers the CLI offers ([y] [s] [a] [n] [d]), ACP's four among them. */
const permissionAnswers: ReadonlyArray<{ readonly label: string; readonly answer: PermissionAnswer }> = [
  { label: "Allow once", answer: { decision: "allow", scope: "once" } },
  { label: "Allow for session", answer: { decision: "allow", scope: "session" } },
  { label: "Always allow", answer: { decision: "allow", scope: "always" } },
  { label: "Deny", answer: { decision: "deny", scope: "once" } },
  { label: "Deny always", answer: { decision: "deny", scope: "always" } }
]

interface Props {
  readonly api: Api
  readonly sessionId: string
  readonly toolCallId: string
  readonly ask: Ask
  /** What to show under the question; left out when the call's own view shows it already. */
  readonly detail: string | undefined
}

export const PermissionCard = ({ api, sessionId, toolCallId, ask, detail }: Props) => {
  const [busy, setBusy] = useState(false)
  const [note, setNote] = useState<{ readonly text: string; readonly quiet: boolean } | undefined>(undefined)
  const respond = async (answer: PermissionAnswer) => {
    setBusy(true)
    const result = await api.call((client) => client.RespondPermission({ sessionId, toolCallId, answer }))
    setBusy(false)
    if (result._tag === "Right") return
    // Someone else answered first (another tab, the CLI): the resolution arrives as an event.
    if (result.left._tag === "PermissionNotPending") return setNote({ text: "Already answered elsewhere.", quiet: true })
    setNote({ text: describe(result.left), quiet: false })
  }
  return (
    <div class="permission-card" role="group" aria-label="permission request">
      <p>
        <span class={`risk ${ask.risk}`}>{ask.risk}</span> {ask.summary}
      </p>
      {detail === undefined ? null : looksLikeDiff(detail) ? <Diff text={detail} /> : <pre>{detail}</pre>}
      <div class="actions">
        {permissionAnswers.map(({ label, answer }) => (
          <button key={label} type="button" class={answer.decision} disabled={busy} onClick={() => respond(answer)}>
            {label}
          </button>
        ))}
      </div>
      {note === undefined ? null : <p class={note.quiet ? "muted" : "error"}>{note.text}</p>}
    </div>
  )
}
