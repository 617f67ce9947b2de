import type { ComponentChildren } from "preact"
import { useState } from "preact/hooks"
import type { ActionOutcome } from "../memory.js"

/** A note under an action: quiet when someone else got there first, loud when something broke. */
const OutcomeNote = ({ outcome }: { readonly outcome: ActionOutcome | undefined }) => {
  if (outcome === undefined || outcome._tag === "done") return null
  return <span class={outcome._tag === "gone" ? "muted" : "error"}>{outcome.message}</span>
}

interface ActionProps {
  readonly label: ComponentChildren
  readonly class: string
  readonly run: () => Promise<ActionOutcome>
}

/** Buttons that run one action at a time and show how it went. */
export const Actions = ({ actions }: { readonly actions: ReadonlyArray<ActionProps> }) => {
  const [busy, setBusy] = useState(false)
  const [outcome, setOutcome] = useState<ActionOutcome | undefined>(undefined)
  const run = async (action: ActionProps) => {
    setBusy(true)
    const next = await action.run()
    setBusy(false)
    setOutcome(next)
  }
  return (
    <span class="memory-actions">
      {actions.map((action) => (
        <button key={action.class} type="button" class={action.class} disabled={busy} onClick={() => run(action)}>
          {action.label}
        </button>
      ))}
      <OutcomeNote outcome={outcome} />
    </span>
  )
}

type Review = (candidateId: string, decision: "approve" | "reject") => Promise<ActionOutcome>

export const ReviewButtons = ({ candidateId, review }: { readonly candidateId: string; readonly review: Review }) => (
  <Actions
    actions={[
      { label: "Approve", class: "approve", run: () => review(candidateId, "approve") },
      { label: "Reject", class: "reject", run: () => review(candidateId, "reject") }
    ]}
  />
)
