import type { SessionListItem } from "../../../src/domain/host.js"
import type { MemoryEvidence, MemoryScope } from "../../../src/domain/events.js"
import { showInvisible } from "../../../src/domain/visible-text.js"
import { useState } from "preact/hooks"
import type { ActionOutcome, MemoryReview } from "../memory.js"
import { linkTo, type Route } from "../route.js"
import { sessionTitle } from "../session-list.js"
import { Actions, ReviewButtons } from "./MemoryActions.js"

interface Props {
  readonly review: MemoryReview
  readonly sessions: ReadonlyArray<SessionListItem> | undefined
  readonly onOpen: (route: Route) => void
}

const when = (iso: string) => new Date(iso).toLocaleString()

const Scope = ({ scope, workspaceRoot }: { readonly scope: MemoryScope; readonly workspaceRoot: string | undefined }) =>
  scope === "user" ? (
    <span class="scope user">all projects</span>
  ) : (
    <span class="scope project" title="only sessions in this project see it">
      project <code>{showInvisible(workspaceRoot ?? "?")}</code>
    </span>
  )

/** Where a memory came from: a link to its session, scrolled to the events that back it. */
const Evidence = ({ evidence, sessions, onOpen }: { readonly evidence: MemoryEvidence } & Pick<Props, "sessions" | "onOpen">) => {
  const route: Route = { _tag: "session", sessionId: evidence.sessionId, events: { from: evidence.fromSequence, to: evidence.toSequence } }
  const title = sessionTitle(sessions, evidence.sessionId)
  return (
    <a class="evidence-link" {...linkTo(route, onOpen)}>
      {title} · events {evidence.fromSequence}–{evidence.toSequence}
    </a>
  )
}

export const MemoryPanel = ({ review, sessions, onOpen }: Props) => {
  const { candidates, memories } = review
  // The refresh after an action removes the item, and its note with it: say here what happened.
  const [notice, setNotice] = useState<string | undefined>(undefined)
  const noting = async (outcome: Promise<ActionOutcome>) => {
    const settled = await outcome
    setNotice(settled._tag === "gone" ? settled.message : undefined)
    return settled
  }
  const decide = (candidateId: string, decision: "approve" | "reject") => noting(review.review(candidateId, decision))
  return (
    <main class="pane memory-pane">
      <header class="session-header">
        <div>
          <h2>Memory</h2>
          <p class="muted">What the agent proposed to remember across sessions. Nothing takes effect until it is approved.</p>
        </div>
        <button type="button" onClick={review.refresh}>
          Refresh
        </button>
      </header>
      {review.error === undefined ? null : <p class="connection error">{review.error}</p>}
      {notice === undefined ? null : <p class="connection muted notice">{notice}</p>}
      <div class="memory-lists">
        <section aria-label="pending memory candidates">
          <h3>Waiting for review{candidates === undefined ? "" : ` (${candidates.length})`}</h3>
          {candidates === undefined ? <p class="muted">Loading…</p> : null}
          {candidates?.length === 0 ? <p class="muted">Nothing waits for review.</p> : null}
          <ul>
            {candidates?.map((c) => (
              <li key={c.id} class="memory-item candidate" data-candidate-id={c.id}>
                <p class="memory-text">{showInvisible(c.text)}</p>
                <p class="memory-facts">
                  <Scope scope={c.scope} workspaceRoot={c.workspaceRoot} /> · proposed {when(c.proposedAt)} in{" "}
                  <Evidence evidence={c.evidence} sessions={sessions} onOpen={onOpen} />
                </p>
                <ReviewButtons candidateId={c.id} review={decide} />
              </li>
            ))}
          </ul>
        </section>
        <section aria-label="approved memories">
          <h3>Approved{memories === undefined ? "" : ` (${memories.length})`}</h3>
          {memories === undefined ? <p class="muted">Loading…</p> : null}
          {memories?.length === 0 ? <p class="muted">No memories yet.</p> : null}
          <ul>
            {memories?.map((m) => (
              <li key={m.id} class="memory-item approved" data-memory-id={m.id}>
                <p class="memory-text">{showInvisible(m.text)}</p>
                <p class="memory-facts">
                  <Scope scope={m.scope} workspaceRoot={m.workspaceRoot} /> · approved by {m.approvedBy} {when(m.approvedAt)} · from{" "}
                  <Evidence evidence={m.evidence} sessions={sessions} onOpen={onOpen} />
                </p>
                <Actions actions={[{ label: "Delete", class: "delete", run: () => noting(review.remove(m.id)) }]} />
              </li>
            ))}
          </ul>
        </section>
      </div>
    </main>
  )
}
