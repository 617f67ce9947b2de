import { useState } from "preact/hooks"
import type { PermissionAnswer } from "../../../src/domain/host.js"
import { lastingChoices } from "../../../src/domain/lasting-choices.js"
import { showInvisible } from "../../../src/domain/visible-text.js"
import { describeCover } from "../../../src/domain/permissions.js"
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
  // How far a lasting answer reaches: one of the question's offers (the host refuses any other).
  const offers = ask.lasting === undefined ? [] : lastingChoices(ask.lasting)
  const [reach, setReach] = useState(0)
  const chosen = offers[reach]?.chosen
  // What the buttons below would store, in the words the CLI uses.
  const covered = ask.lasting === undefined || chosen?.paths === undefined ? ask.lasting : { ...ask.lasting, paths: chosen.paths }
  const respond = async (answer: PermissionAnswer) => {
    setBusy(true)
    const sent = answer.scope === "once" || chosen === undefined ? answer : { ...answer, cover: chosen }
    const result = await api.call((client) => client.RespondPermission({ sessionId, toolCallId, answer: sent }))
    setBusy(false)
    if (result._tag === "Right") return
    // Someone else answered first (another tab, the CLI): the resolution arrives as an event.
    if (result.left._tag === "PermissionNotPending") return setNote({ text: "Already answered elsewhere.", quiet: true })
    setNote({ text: describe(result.left), quiet: false })
  }
  return (
    <div class="permission-card" role="group" aria-label="permission request">
      <p>
        <span class={`risk ${ask.risk}`}>{ask.risk}</span> {showInvisible(ask.summary)}
      </p>
      {detail === undefined ? null : looksLikeDiff(detail) ? <Diff text={showInvisible(detail)} /> : <pre>{showInvisible(detail)}</pre>}
      <p class="muted lasting">
        {covered === undefined
          ? "Session, always and deny always apply to this call only: nothing in it can be remembered safely."
          : showInvisible(`Session and always cover ${describeCover(covered, "allow")}; deny always covers ${describeCover(covered, "deny")}.`)}
      </p>
      {offers.length < 2 ? null : (
        <label class="reach">
          Remember{" "}
          <select name="reach" aria-label="What a lasting answer remembers" value={String(reach)} disabled={busy} onChange={(e) => setReach(Number(e.currentTarget.value))}>
            {offers.map((offer, i) => (
              <option key={offer.label} value={String(i)}>
                {showInvisible(offer.label)}
              </option>
            ))}
          </select>
        </label>
      )}
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
