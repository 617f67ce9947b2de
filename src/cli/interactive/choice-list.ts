import { type Component, type Focusable, Input, matchesKey } from "@mariozechner/pi-tui"
import { fit } from "./block-lines.js"
import { safeInline } from "./safe-text.js"
import type { Theme } from "./theme.js"
import { wrapLines } from "./wrap-lines.js"

export interface Choice<A> {
  /** Content: made safe when drawn. */
  readonly label: string
  readonly detail?: string
  readonly value: A
}

export interface ChoiceListOptions<A> {
  /** Above the list; made safe when drawn. */
  readonly title: string
  readonly choices: ReadonlyArray<Choice<A>>
  /** Typing narrows the list (every word typed must appear in a choice's label or detail). */
  readonly filterable: boolean
  readonly maxVisible?: number
  readonly onChoose: (value: A) => void
  readonly onCancel: () => void
}

/** The choices whose label or detail holds every word of `filter` (case ignored), in their order. */
export const filterChoices = <A>(choices: ReadonlyArray<Choice<A>>, filter: string): ReadonlyArray<Choice<A>> => {
  const words = filter.toLowerCase().split(/\s+/).filter((word) => word !== "")
  if (words.length === 0) return choices
  return choices.filter((choice) => {
    const text = `${choice.label} ${choice.detail ?? ""}`.toLowerCase()
    return words.every((word) => text.includes(word))
  })
}

/**
 * A list to pick one from, with ↑/↓ and Enter (Esc leaves), optionally narrowed by typing: the
 * session picker, a turn to rewind to, what to restore.
 */
export class ChoiceList<A> implements Component, Focusable {
  focused = false
  readonly #options: ChoiceListOptions<A>
  readonly #theme: Theme
  readonly #filter = new Input()
  #selected = 0

  constructor(options: ChoiceListOptions<A>, theme: Theme) {
    this.#options = options
    this.#theme = theme
  }

  #shown(): ReadonlyArray<Choice<A>> {
    return this.#options.filterable ? filterChoices(this.#options.choices, this.#filter.getValue()) : this.#options.choices
  }

  handleInput(data: string): void {
    const shown = this.#shown()
    if (matchesKey(data, "escape") || matchesKey(data, "ctrl+c")) return this.#options.onCancel()
    if (matchesKey(data, "up")) {
      this.#selected = Math.max(0, this.#selected - 1)
      return
    }
    if (matchesKey(data, "down")) {
      this.#selected = Math.min(shown.length - 1, this.#selected + 1)
      return
    }
    if (matchesKey(data, "enter")) {
      const chosen = shown[this.#selected]
      if (chosen !== undefined) this.#options.onChoose(chosen.value)
      return
    }
    if (this.#options.filterable) {
      this.#filter.handleInput(data)
      this.#selected = 0
    }
  }

  render(width: number): Array<string> {
    const t = this.#theme
    const shown = this.#shown()
    const max = this.#options.maxVisible ?? 10
    const start = Math.max(0, Math.min(this.#selected - Math.floor(max / 2), shown.length - max))
    const visible = shown.slice(start, start + max)
    const bar = t.cyan("│ ")
    const out = wrapLines([t.bold(safeInline(this.#options.title))], Math.max(1, width - 2)).map((line) => `${bar}${line}`)
    if (this.#options.filterable) {
      this.#filter.focused = this.focused
      const [field] = this.#filter.render(Math.max(1, width - 10))
      out.push(`${bar}${t.dim("filter:")} ${field ?? ""}`)
    }
    if (shown.length === 0) out.push(`${bar}${t.dim("(nothing matches)")}`)
    for (const [i, choice] of visible.entries()) {
      const selected = start + i === this.#selected
      const label = safeInline(choice.label)
      const detail = choice.detail === undefined ? "" : `  ${t.dim(safeInline(choice.detail))}`
      out.push(fit(`${bar}${selected ? t.cyan("› ") : "  "}${selected ? t.bold(label) : label}${detail}`, width))
    }
    if (shown.length > visible.length) out.push(`${bar}${t.dim(`(${shown.length} in all: ↑↓ to see more)`)}`)
    out.push(`${bar}${t.dim(`↑↓ choose · enter ${this.#options.filterable ? "pick · type to filter" : "pick"} · esc back`)}`)
    return out
  }

  invalidate(): void {
    this.#filter.invalidate()
  }
}
