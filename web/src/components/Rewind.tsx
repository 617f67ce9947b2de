import { useState } from "preact/hooks"
import type { Api } from "../api.js"
import { type RewindOutcome, type RewindRequest, rewindOutcomeOf, type RewindWhat } from "../rewind.js"

/** Who the log says rewound: this page. */
const by = "web"

/** Rewinds and redoes on request; a drift is shown, and sent again with `force` only if the person says so. */
export const useRewind = (api: Api, sessionId: string) => {
  const [busy, setBusy] = useState(false)
  const [outcome, setOutcome] = useState<RewindOutcome | undefined>(undefined)
  const send = async (request: RewindRequest, force: boolean) => {
    setBusy(true)
    setOutcome(undefined)
    const result =
      request._tag === "Redo"
        ? await api.call((client) => client.Redo({ sessionId, force, by }))
        : await api.call((client) => client.Rewind({ sessionId, to: { _tag: "Turn", turn: request.turn }, what: request.what, force, by }))
    setBusy(false)
    setOutcome(rewindOutcomeOf(request, result))
  }
  return {
    busy,
    outcome,
    rewind: (turn: number, what: RewindWhat) => send({ _tag: "Rewind", turn, what }, false),
    redo: () => send({ _tag: "Redo" }, false),
    force: (request: RewindRequest) => send(request, true),
    dismiss: () => setOutcome(undefined)
  }
}

const Paths = ({ paths }: { readonly paths: ReadonlyArray<string> }) => (
  <ul class="paths">
    {paths.map((path) => (
      <li key={path}>
        <code>{path}</code>
      </li>
    ))}
  </ul>
)

const Done = ({ outcome }: { readonly outcome: Extract<RewindOutcome, { readonly _tag: "done" }> }) => {
  const { restoredPaths, drift, conversationTo } = outcome.result
  return (
    <>
      <strong>{outcome.request._tag === "Redo" ? "Redone." : "Rewound."}</strong>{" "}
      {conversationTo === undefined ? null : <>The conversation is back as it was at event {conversationTo}. </>}
      {restoredPaths.length === 0 ? (
        <>No file needed restoring.</>
      ) : (
        <>
          Restored:
          <Paths paths={restoredPaths} />
        </>
      )}
      {drift.length === 0 ? null : (
        <span class="warn">
          Overwrote changes made outside the agent:
          <Paths paths={drift} />
        </span>
      )}
    </>
  )
}

interface CardProps {
  readonly outcome: RewindOutcome
  readonly busy: boolean
  readonly onForce: (request: RewindRequest) => void
  readonly onDismiss: () => void
}

/** How a rewind went (its Redo is in the session's header, as long as there is one to redo); a drift asks before anything is overwritten. */
export const RewindCard = ({ outcome, busy, onForce, onDismiss }: CardProps) => {
  switch (outcome._tag) {
    case "done":
      return (
        <div class="rewind-result" role="status">
          <div class="message">
            <Done outcome={outcome} />
          </div>
          <button type="button" class="dismiss" aria-label="Dismiss" onClick={onDismiss}>
            ×
          </button>
        </div>
      )
    case "drift":
      return (
        <div class="rewind-drift" role="alert">
          <div class="message">
            <strong>These files changed since the last checkpoint, by something other than the agent.</strong> Nothing was changed; rewinding
            anyway overwrites them:
            <Paths paths={outcome.paths} />
          </div>
          <div class="actions">
            <button type="button" class="force" disabled={busy} onClick={() => onForce(outcome.request)}>
              Rewind anyway
            </button>
            <button type="button" disabled={busy} onClick={onDismiss}>
              Cancel
            </button>
          </div>
        </div>
      )
    case "failed":
      return (
        <div class="rewind-result failed" role="alert">
          <div class="message error">Rewind failed: {outcome.message}</div>
          <button type="button" class="dismiss" aria-label="Dismiss" onClick={onDismiss}>
            ×
          </button>
        </div>
      )
  }
}
