import { useState } from "preact/hooks"
import type { PermissionAnswer } from "../../../src/domain/host.js"
import { MAX_PLAN_NOTE_CHARS, planModeMeaning } from "../../../src/domain/plan.js"
import { type Api, describe } from "../api.js"

/** The choices the terminal and the editor offer: approve into one of two modes, or keep planning. */
const approvals: ReadonlyArray<{ readonly label: string; readonly title: string; readonly answer: PermissionAnswer }> = [
  { label: "Approve, accept edits", title: planModeMeaning["accept-edits"], answer: { decision: "allow", scope: "once", mode: "accept-edits" } },
  { label: "Approve, ask before edits", title: planModeMeaning.default, answer: { decision: "allow", scope: "once", mode: "default" } }
]

interface Props {
  readonly api: Api
  readonly sessionId: string
  readonly toolCallId: string
}

/** A plan's question: the plan is shown above it; the answer leaves plan mode or sends the plan back with a note. */
export const PlanCard = ({ api, sessionId, toolCallId }: Props) => {
  const [busy, setBusy] = useState(false)
  const [note, setNote] = useState("")
  const [problem, setProblem] = useState<{ readonly text: string; readonly quiet: boolean } | undefined>(undefined)
  const respond = async (answer: PermissionAnswer) => {
    setBusy(true)
    // Named, so the answer and the mode change it makes are recorded as the web page's (`rpc:web`).
    const result = await api.call((client) => client.RespondPermission({ sessionId, toolCallId, answer: { ...answer, client: "web" } }))
    setBusy(false)
    if (result._tag === "Right") return
    if (result.left._tag === "PermissionNotPending") return setProblem({ text: "Already answered elsewhere.", quiet: true })
    setProblem({ text: describe(result.left), quiet: false })
  }
  const sendBack = () => {
    const text = note.trim()
    return respond({ decision: "deny", scope: "once", ...(text === "" ? {} : { note: text }) })
  }
  return (
    <div class="permission-card plan-card" role="group" aria-label="plan approval">
      <p>Approve this plan and leave plan mode?</p>
      <div class="actions">
        {approvals.map(({ label, title, answer }) => (
          <button key={label} type="button" class="allow" title={title} disabled={busy} onClick={() => respond(answer)}>
            {label}
          </button>
        ))}
      </div>
      <label class="plan-note">
        What should change? (sent to the agent with “Keep planning”)
        <textarea value={note} maxLength={MAX_PLAN_NOTE_CHARS} rows={2} disabled={busy} onInput={(event) => setNote(event.currentTarget.value)} />
      </label>
      <div class="actions">
        <button type="button" class="deny" disabled={busy} onClick={sendBack}>
          Keep planning
        </button>
      </div>
      {problem === undefined ? null : <p class={problem.quiet ? "muted" : "error"}>{problem.text}</p>}
    </div>
  )
}
