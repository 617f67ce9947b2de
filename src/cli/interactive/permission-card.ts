import type { Component, Focusable } from "@mariozechner/pi-tui"
import type { EventOf } from "../../domain/events.js"
import type { PermissionAnswer } from "../../domain/host.js"
import type { ApprovalRequest } from "../../services/Approvals.js"
import { type LastingChoice, lastingChoices } from "../../domain/lasting-choices.js"
import { describeQuestion, withChoice } from "../permission-question.js"
import { safeInline } from "./safe-text.js"
import type { Theme } from "./theme.js"
import { wrapLines } from "./wrap-lines.js"

export type CardAnswer = Omit<PermissionAnswer, "client">

/** One key per answer, as `run` asks them (permission-question.ts). */
export const permissionKeys: Readonly<Record<string, CardAnswer>> = {
  y: { decision: "allow", scope: "once", by: "user" },
  s: { decision: "allow", scope: "session", by: "user" },
  a: { decision: "allow", scope: "always", by: "user" },
  n: { decision: "deny", scope: "once", by: "user" },
  d: { decision: "deny", scope: "always", by: "user" }
}

const CHOICES = "[y] allow once  [s] allow for this session  [a] always  [n] deny  [d] deny always"

/** While keys still go to the editor: a question takes none typed before it could be read. */
export const WAITING = "(keys still go to the editor: this question takes them once you stop typing a moment)"

/** The question an event asks, as `run` builds it (the card shows it in the same words). */
export const requestOf = (event: EventOf<"permission.requested">): ApprovalRequest => ({
  sessionId: event.sessionId,
  turnId: event.turnId ?? "",
  toolCallId: event.payload.toolCallId,
  tool: event.payload.tool,
  risk: event.payload.risk,
  summary: event.payload.summary,
  input: undefined,
  firm: event.payload.firm === true,
  outsideWorkspace: event.payload.outsideWorkspace === true,
  ...(event.payload.detail === undefined ? {} : { detail: event.payload.detail }),
  ...(event.payload.lasting === undefined ? {} : { lasting: event.payload.lasting })
})

/**
 * A permission question in the session: the whole command or diff, what a lasting answer would
 * store (the path globs or command prefixes, shown before anything is stored), and one key per
 * answer. A lasting answer (s, a, d) about paths then asks how far it reaches, among the
 * question's offers (`lastingChoices`), one digit each, as `run` asks. The words are `run`'s
 * (`describeQuestion`, which shows every character of the question visibly); `onAnswer` sends
 * the answer, with the choice.
 */
export class PermissionCard implements Component, Focusable {
  focused = false
  readonly toolCallId: string
  readonly #request: ApprovalRequest
  readonly #theme: Theme
  readonly #onAnswer: (answer: CardAnswer) => void
  readonly #offers: ReadonlyArray<LastingChoice>
  /** A lasting answer waiting for how far it reaches. */
  #lasting: CardAnswer | undefined

  constructor(request: ApprovalRequest, theme: Theme, onAnswer: (answer: CardAnswer) => void) {
    this.#request = request
    this.toolCallId = request.toolCallId
    this.#theme = theme
    this.#onAnswer = onAnswer
    this.#offers = request.lasting === undefined ? [] : lastingChoices(request.lasting)
  }

  handleInput(data: string): void {
    const lasting = this.#lasting
    if (lasting !== undefined) {
      const line = data === "\r" ? "" : /^\d$/.test(data) ? data : undefined
      const chosen = line === undefined ? undefined : withChoice(lasting, this.#offers, line)
      if (chosen !== undefined) this.#onAnswer(chosen)
      return
    }
    const chosen = data.length === 1 ? permissionKeys[data.toLowerCase()] : undefined
    if (chosen === undefined) return
    if (chosen.scope === "once" || this.#offers.length < 2) return this.#onAnswer(chosen)
    this.#lasting = chosen
  }

  render(width: number): Array<string> {
    const t = this.#theme
    const question = describeQuestion(this.#request, t.color).text.replace(/^\n/, "").replace(/\n$/, "")
    const bar = t.yellow("│ ")
    const inner = Math.max(1, width - 2)
    const body = wrapLines(question.split("\n"), inner).map((line) => `${bar}${line}`)
    // Its keys are named only once it takes them (the screen gives it the focus after a quiet moment).
    if (!this.focused) return [...body, ...wrapLines([t.dim(WAITING)], inner).map((line) => `${bar}${line}`)]
    const lasting = this.#lasting
    if (lasting === undefined) return [...body, ...wrapLines([t.bold(CHOICES)], inner).map((line) => `${bar}${line}`)]
    const what = `${lasting.decision === "allow" ? "allow" : "deny"} ${lasting.scope === "always" ? "always" : "for this session"}`
    const offers = this.#offers.map((offer, i) => t.dim(`  [${i + 1}] ${safeInline(offer.label)}`))
    return [...body, ...wrapLines([t.bold(`${what}: remember which?`), ...offers, t.bold(`[1]-[${this.#offers.length}] choose (Enter: 1)`)], inner).map((line) => `${bar}${line}`)]
  }

  invalidate(): void {
    // Drawn from the question each time: nothing cached.
  }
}
