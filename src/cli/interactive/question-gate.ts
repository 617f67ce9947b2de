/**
 * How long a question on screen waits, with no key typed, before it takes keys: longer than the
 * pause between keys of someone typing, short enough not to be waited for.
 */
export const QUESTION_QUIET_MS = 500

/** Time, for the gate: the system's, or a test's that moves when the test says. */
export interface Clock {
  readonly now: () => number
  /** Runs `run` after `ms`; the function returned cancels it. */
  readonly after: (ms: number, run: () => void) => () => void
}

export const systemClock: Clock = {
  now: () => Date.now(),
  after: (ms, run) => {
    const timer = setTimeout(run, ms)
    return () => clearTimeout(timer)
  }
}

/**
 * Whether the question on screen may take keys. One that appears while the person types for
 * the editor would take the next letter as its answer (the `a` of "add" is "allow always", the
 * `e` of "refactor" approves a plan), an answer to a question never seen. So a question takes
 * keys only once `quietMs` passed since it came on screen and since the last key that went
 * elsewhere; until then keys go on to the editor, and nothing typed is lost. Each question that
 * comes on screen waits afresh: the next one after an answer, one shown again after a list
 * covered it, one a resumed session's history brings when the screen starts.
 */
export class QuestionGate<Q> {
  readonly #clock: Clock
  readonly #quietMs: number
  readonly #onOpen: () => void
  #shown: Q | undefined
  #since = 0
  #lastKey = Number.NEGATIVE_INFINITY
  #open = false
  #cancel: (() => void) | undefined

  /** `onOpen` is called when the question on screen starts taking keys. */
  constructor(clock: Clock, quietMs: number, onOpen: () => void) {
    this.#clock = clock
    this.#quietMs = quietMs
    this.#onOpen = onOpen
  }

  /** The question now on screen (undefined: none); the same one again changes nothing. */
  show(question: Q | undefined): void {
    if (question === this.#shown) return
    this.#stopTimer()
    this.#shown = question
    this.#open = false
    if (question === undefined) return
    this.#since = this.#clock.now()
    this.#check()
  }

  /** A key went to something other than the question (the editor): the quiet time starts again. */
  keyElsewhere(): void {
    this.#lastKey = this.#clock.now()
  }

  /** The question that takes keys now, if one does. */
  open(): Q | undefined {
    return this.#open ? this.#shown : undefined
  }

  stop(): void {
    this.#stopTimer()
  }

  #check = (): void => {
    this.#cancel = undefined
    const wait = Math.max(this.#since, this.#lastKey) + this.#quietMs - this.#clock.now()
    if (wait > 0) {
      this.#cancel = this.#clock.after(wait, this.#check)
      return
    }
    this.#open = true
    this.#onOpen()
  }

  #stopTimer(): void {
    this.#cancel?.()
    this.#cancel = undefined
  }
}
