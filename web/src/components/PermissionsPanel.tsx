import type { SessionListItem } from "../../../src/domain/host.js"
import { describeCover } from "../../../src/domain/permissions.js"
import { showInvisible } from "../../../src/domain/visible-text.js"
import { useState } from "preact/hooks"
import { sessionTitle } from "../session-list.js"
import type { ActionOutcome } from "../memory.js"
import { type RememberedAnswer, useRememberedAnswers } from "../remembered.js"
import type { Api } from "../api.js"
import { linkTo, type Route } from "../route.js"
import { Actions } from "./MemoryActions.js"
import { When } from "./When.js"

interface Props {
  readonly api: Api
  readonly sessions: ReadonlyArray<SessionListItem> | undefined
  readonly onOpen: (route: Route) => void
}

/** Answers grouped by the workspace they hold in, in the order their newest answer came. */
const byWorkspace = (answers: ReadonlyArray<RememberedAnswer>): ReadonlyArray<readonly [string, ReadonlyArray<RememberedAnswer>]> => {
  const groups = new Map<string, Array<RememberedAnswer>>()
  for (const answer of answers) {
    const group = groups.get(answer.workspaceRoot)
    if (group === undefined) groups.set(answer.workspaceRoot, [answer])
    else group.push(answer)
  }
  return [...groups.entries()]
}

const Holds = ({ answer, sessions, onOpen }: { readonly answer: RememberedAnswer } & Pick<Props, "sessions" | "onOpen">) => {
  if (answer.scope === "always" || answer.sessionId === undefined) return <span class="scope always">always</span>
  const route: Route = { _tag: "session", sessionId: answer.sessionId }
  const title = sessionTitle(sessions, answer.sessionId)
  return (
    <span class="scope session">
      for the session <a {...linkTo(route, onOpen)}>{title}</a>
    </span>
  )
}

/**
 * The answers the host remembers ("always", and "for the session" while it lives), as
 * `custom-agent permissions list` shows them, each revocable: the next such call is asked again.
 */
export const PermissionsPanel = ({ api, sessions, onOpen }: Props) => {
  const remembered = useRememberedAnswers(api)
  // The refresh after a revoke removes the row, and its note with it: say here what happened.
  const [notice, setNotice] = useState<string | undefined>(undefined)
  const revoke = async (id: string): Promise<ActionOutcome> => {
    const outcome = await remembered.revoke(id)
    setNotice(outcome._tag === "gone" ? outcome.message : undefined)
    return outcome
  }
  const { answers } = remembered
  return (
    <main class="pane permissions-pane">
      <header class="session-header">
        <div>
          <h2>Permissions</h2>
          <p class="muted">Answers given for a session or always. Revoke one and the agent asks again the next time.</p>
        </div>
        <button type="button" onClick={remembered.refresh}>
          Refresh
        </button>
      </header>
      {remembered.error === undefined ? null : <p class="connection error">{remembered.error}</p>}
      {notice === undefined ? null : <p class="connection muted notice">{notice}</p>}
      <div class="memory-lists">
      {answers === undefined ? <p class="muted">Loading…</p> : null}
      {answers?.length === 0 ? <p class="muted">No remembered answers: every call the rules do not settle is asked.</p> : null}
      {byWorkspace(answers ?? []).map(([workspaceRoot, group]) => (
        <section key={workspaceRoot} class="remembered-group" aria-label={`remembered answers in ${workspaceRoot}`}>
          <h3>
            <code>{showInvisible(workspaceRoot)}</code>
          </h3>
          <ul>
            {group.map((answer) => (
              <li key={answer.id} class={`memory-item remembered-answer ${answer.decision}`} data-answer-id={answer.id}>
                <p class="memory-text">
                  <span class={`decision ${answer.decision}`}>{answer.decision === "allow" ? "Allow" : "Deny"}</span>{" "}
                  {showInvisible(describeCover(answer, answer.decision))}
                </p>
                <p class="memory-facts">
                  <code>{showInvisible(answer.tool)}</code> · <Holds answer={answer} sessions={sessions} onOpen={onOpen} /> · <When iso={answer.createdAt} />
                </p>
                <Actions actions={[{ label: "Revoke", class: "revoke", run: () => revoke(answer.id) }]} />
              </li>
            ))}
          </ul>
        </section>
      ))}
      </div>
    </main>
  )
}
