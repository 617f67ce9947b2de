import { useState } from "preact/hooks"
import type { QueuedMessage } from "../../../src/domain/events.js"
import type { Inbox, QueueAction } from "../../../src/domain/host.js"
import { type Api, describe } from "../api.js"

interface ItemProps {
  readonly api: Api
  readonly sessionId: string
  readonly message: QueuedMessage
  readonly canPromote: boolean
}

const QueueItem = ({ api, sessionId, message, canPromote }: ItemProps) => {
  const [draft, setDraft] = useState<string | undefined>(undefined)
  const [note, setNote] = useState<string | undefined>(undefined)
  const edit = async (action: QueueAction) => {
    const result = await api.call((client) => client.EditQueue({ sessionId, messageId: message.id, action }))
    if (result._tag === "Right") {
      setDraft(undefined)
      return setNote(undefined)
    }
    // It left the queue meanwhile (a turn took it, another client deleted it).
    setNote(result.left._tag === "QueuedMessageNotFound" ? "No longer queued." : describe(result.left))
  }
  return (
    <li class="queued" data-message-id={message.id}>
      {draft === undefined ? (
        <span class="content">{message.content}</span>
      ) : (
        <textarea rows={2} value={draft} onInput={(e) => setDraft(e.currentTarget.value)} />
      )}
      <span class="actions">
        {draft === undefined ? (
          <button type="button" onClick={() => setDraft(message.content)}>
            Edit
          </button>
        ) : (
          <>
            <button type="button" disabled={draft.trim() === ""} onClick={() => edit({ _tag: "Edit", content: draft })}>
              Save
            </button>
            <button type="button" onClick={() => setDraft(undefined)}>
              Discard
            </button>
          </>
        )}
        {canPromote ? (
          <button type="button" onClick={() => edit({ _tag: "Promote" })} title="Read at the running turn's next step">
            Steer now
          </button>
        ) : null}
        <button type="button" onClick={() => edit({ _tag: "Delete" })}>
          Delete
        </button>
      </span>
      {note === undefined ? null : <span class="muted">{note}</span>}
    </li>
  )
}

/** What waits in the inbox: steering for the next step, then messages for the next turns. */
export const QueueView = ({ api, sessionId, inbox }: { readonly api: Api; readonly sessionId: string; readonly inbox: Inbox }) => {
  if (inbox.nextStep.length === 0 && inbox.nextTurn.length === 0) return null
  return (
    <section class="queue" aria-label="queue">
      {inbox.nextStep.length === 0 ? null : (
        <>
          <h3>Steering (read at the next step)</h3>
          <ul>
            {inbox.nextStep.map((m) => (
              <QueueItem key={m.id} api={api} sessionId={sessionId} message={m} canPromote={false} />
            ))}
          </ul>
        </>
      )}
      {inbox.nextTurn.length === 0 ? null : (
        <>
          <h3>Queued (next turns)</h3>
          <ul>
            {inbox.nextTurn.map((m) => (
              <QueueItem key={m.id} api={api} sessionId={sessionId} message={m} canPromote />
            ))}
          </ul>
        </>
      )}
    </section>
  )
}
