import { type Component, type Focusable, Input } from "@mariozechner/pi-tui"
import { planModeMeaning } from "../../domain/plan.js"
import { type CardAnswer, WAITING } from "./permission-card.js"
import type { Theme } from "./theme.js"
import { wrapLines } from "./wrap-lines.js"

/** Approve and how edits are approved from then on, as `run` asks (plan-question.ts). */
export const planKeys: Readonly<Record<string, CardAnswer>> = {
  y: { decision: "allow", scope: "once", by: "user", mode: "default" },
  e: { decision: "allow", scope: "once", by: "user", mode: "accept-edits" }
}

/**
 * A plan's question: the plan itself is in the conversation just above (every line, made safe);
 * this asks whether to approve it and leave plan mode, and how edits are approved from then
 * on, or to keep planning with a note for the agent.
 */
export class PlanCard implements Component, Focusable {
  focused = false
  readonly toolCallId: string
  readonly #theme: Theme
  readonly #onAnswer: (answer: CardAnswer) => void
  #noting = false
  readonly #note = new Input()

  constructor(toolCallId: string, theme: Theme, onAnswer: (answer: CardAnswer) => void) {
    this.toolCallId = toolCallId
    this.#theme = theme
    this.#onAnswer = onAnswer
    this.#note.onSubmit = (value) => {
      const note = value.trim()
      this.#onAnswer({ decision: "deny", scope: "once", by: "user", ...(note === "" ? {} : { note }) })
    }
    this.#note.onEscape = () => {
      this.#noting = false
      this.#note.setValue("")
    }
  }

  handleInput(data: string): void {
    if (this.#noting) return this.#note.handleInput(data)
    const key = data.length === 1 ? data.toLowerCase() : undefined
    if (key === undefined) return
    const approved = planKeys[key]
    if (approved !== undefined) return this.#onAnswer(approved)
    if (key === "n") this.#noting = true
  }

  render(width: number): Array<string> {
    const t = this.#theme
    const bar = t.cyan("│ ")
    const inner = Math.max(1, width - 2)
    const lines = [
      t.bold("Approve the plan above and leave plan mode?"),
      t.dim(`  y  approve; from now on ${planModeMeaning.default}`),
      t.dim(`  e  approve; from now on ${planModeMeaning["accept-edits"]}`),
      t.dim("  n  keep planning: the session stays in plan mode, and a note tells the agent what to change")
    ]
    const out = wrapLines(lines, inner).map((line) => `${bar}${line}`)
    if (!this.focused) return [...out, ...wrapLines([t.dim(WAITING)], inner).map((line) => `${bar}${line}`)]
    if (!this.#noting) return [...out, ...wrapLines([t.bold("[y] approve, edits ask  [e] approve, accept edits  [n] keep planning")], inner).map((line) => `${bar}${line}`)]
    this.#note.focused = this.focused
    return [
      ...out,
      ...wrapLines([t.bold("what should change? (a note for the agent; Enter sends it, Esc goes back)")], inner).map((line) => `${bar}${line}`),
      ...this.#note.render(inner).map((line) => `${bar}${line}`)
    ]
  }

  invalidate(): void {
    this.#note.invalidate()
  }
}
