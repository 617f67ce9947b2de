import { useState } from "preact/hooks"
import type { Api } from "../api.js"
import { type CompactOutcome, compactOutcomeOf } from "../compaction.js"

/** Summarizes the session's completed turns for the model on request; the log keeps every event. */
export const useCompaction = (api: Api, sessionId: string) => {
  const [compacting, setCompacting] = useState(false)
  const [outcome, setOutcome] = useState<CompactOutcome | undefined>(undefined)
  const compact = async () => {
    setCompacting(true)
    setOutcome(undefined)
    const result = await api.call((client) => client.Compact({ sessionId }))
    setCompacting(false)
    setOutcome(compactOutcomeOf(result))
  }
  return { compacting, outcome, compact, dismiss: () => setOutcome(undefined) }
}

const Message = ({ outcome }: { readonly outcome: CompactOutcome }) => {
  switch (outcome._tag) {
    case "compacted":
      return (
        <>
          <strong>Compacted.</strong>{" "}
          {outcome.summary === undefined ? "The earlier turns are summarized." : "The model now sees this summary instead of the earlier turns:"}
          {outcome.summary === undefined ? null : <pre class="summary">{outcome.summary}</pre>}
        </>
      )
    case "nothing":
      return <>Nothing new to compact.</>
    case "busy":
      return <>A turn is running: compact once it has ended.</>
    case "failed":
      return <span class="error">Compaction failed: {outcome.message}</span>
  }
}

export const CompactResult = ({ outcome, onDismiss }: { readonly outcome: CompactOutcome; readonly onDismiss: () => void }) => (
  <div class="compact-result" role="status">
    <div class="message">
      <Message outcome={outcome} />
    </div>
    <button type="button" class="dismiss" aria-label="Dismiss" onClick={onDismiss}>
      ×
    </button>
  </div>
)
