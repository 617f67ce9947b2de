import { useRef } from "preact/hooks"
import type { RewindWhat } from "../rewind.js"

const choices: ReadonlyArray<{ readonly what: RewindWhat; readonly label: string; readonly title: string }> = [
  { what: "both", label: "Files and conversation", title: "Put the workspace's files and the conversation back to before this turn" },
  { what: "files", label: "Files only", title: "Put the workspace's files back to before this turn; the conversation goes on" },
  { what: "conversation", label: "Conversation only", title: "The model forgets this turn and what followed; the files stay as they are" }
]

interface RewindProps {
  readonly turn: number
  readonly disabled: boolean
  readonly onRewind: (turn: number, what: RewindWhat) => void
}

/** "Rewind to here", on a turn's prompt: back to before that turn, with what to put back chosen from a small menu. */
export const RewindMenu = ({ turn, disabled, onRewind }: RewindProps) => {
  const menu = useRef<HTMLDetailsElement>(null)
  const choose = (what: RewindWhat) => {
    if (menu.current !== null) menu.current.open = false
    onRewind(turn, what)
  }
  return (
    <details class="turn-action rewind-menu" ref={menu}>
      <summary aria-disabled={disabled}>Rewind to here</summary>
      <div class="menu" role="menu" aria-label={`Rewind to before turn ${turn}`}>
        {choices.map((choice) => (
          <button key={choice.what} type="button" role="menuitem" disabled={disabled} title={choice.title} onClick={() => choose(choice.what)}>
            {choice.label}
          </button>
        ))}
      </div>
    </details>
  )
}

interface ForkProps {
  readonly atSequence: number
  readonly disabled: boolean
  readonly onFork: (atSequence: number) => void
}

/** "Fork from here", on a turn's end: a new session with the history up to and including this turn. */
export const ForkButton = ({ atSequence, disabled, onFork }: ForkProps) => (
  <button
    type="button"
    class="turn-action fork"
    disabled={disabled}
    title="Start a new session whose history is this one's up to here"
    onClick={() => onFork(atSequence)}
  >
    Fork from here
  </button>
)
