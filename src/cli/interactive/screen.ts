import { type Component, Container, Loader, ProcessTerminal, setCapabilities, type Terminal } from "@mariozechner/pi-tui"
import { ChoiceList, type Choice } from "./choice-list.js"
import { Compacted } from "./compact-lines.js"
import { SessionCompletion } from "./completion.js"
import { InsertingTUI } from "./inserting-tui.js"
import { LiveArea, type LiveState } from "./live-area.js"
import { type Clock, QUESTION_QUIET_MS, QuestionGate, systemClock } from "./question-gate.js"
import type { SlashCommandSpec } from "./slash.js"
import { editorTheme, type Theme } from "./theme.js"
import type { Timeline } from "./timeline.js"
import { Transcript } from "./transcript.js"
import { VisibleEditor } from "./visible-editor.js"

/** A question waiting for this terminal's answer (a permission, a plan): shown one at a time, oldest first. */
export interface Card extends Component {
  readonly toolCallId: string
}

/** A component drawn from a function each frame (the header, the status line). */
class Drawn implements Component {
  readonly #draw: (width: number) => Array<string>
  constructor(draw: (width: number) => Array<string>) {
    this.#draw = draw
  }
  render(width: number): Array<string> {
    return this.#draw(width)
  }
  invalidate(): void {
    // Drawn afresh each frame.
  }
}

/** Several timelines, one after another: sessions this terminal showed before the current one stay above it. */
class Sections implements Component {
  readonly #sections: Array<Transcript> = []
  add(transcript: Transcript) {
    this.#sections.push(transcript)
  }
  render(width: number): Array<string> {
    return this.#sections.flatMap((section) => section.render(width))
  }
  invalidate(): void {
    for (const section of this.#sections) section.invalidate()
  }
}

export interface ScreenOptions {
  readonly theme: Theme
  readonly cwd: string
  readonly commands: ReadonlyArray<SlashCommandSpec>
  readonly header: (width: number) => Array<string>
  readonly footer: (width: number) => Array<string>
  readonly live: () => LiveState
  readonly onSubmit: (text: string) => void
  /** The session's own keys, before the focused part sees them; true when the key was taken. */
  readonly onKey: (data: string) => boolean
  /** For tests: a terminal other than the process's. */
  readonly terminal?: Terminal
  /** For tests: the time a question waits before it takes keys is measured on this clock. */
  readonly clock?: Clock
}

/**
 * The terminal's layout, top to bottom: a header, the conversation (it scrolls into the
 * terminal's scrollback), what runs now (tasks, queue), a question or a list to pick from, the
 * spinner, the editor, the status line. It owns which part has the keys: a list being picked
 * from, else the oldest question once it has been on screen a quiet moment (`QuestionGate`:
 * keys typed for the editor are never its answer), else the editor.
 */
export const makeScreen = (options: ScreenOptions) => {
  const t = options.theme
  // Content never writes escapes of its own: a link in the model's Markdown is shown with its
  // address (an OSC 8 hyperlink would hide where a click goes), and no image protocol is used.
  setCapabilities({ images: null, trueColor: false, hyperlinks: false })
  const tui = new InsertingTUI(options.terminal ?? new ProcessTerminal())
  let started = false
  // Nothing is drawn before the terminal is in raw mode: a frame drawn sooner would invite keys
  // the terminal still echoes and cooks itself.
  const redraw = () => {
    if (started) tui.requestRender()
  }
  const sections = new Sections()
  const live = new LiveArea(t, options.live)
  const questions = new Container()
  const spinnerSlot = new Container()
  const completion = new SessionCompletion(options.cwd, options.commands, () => redraw())
  const editor = new VisibleEditor(tui, editorTheme(t), { paddingX: 0 })
  editor.setAutocompleteProvider(completion)
  editor.onSubmit = (text) => options.onSubmit(text)
  const cards: Array<Card> = []
  /** One list at a time; held as a component (its choices' type is its own). */
  let choice: Component | undefined
  let spinner: Loader | undefined

  tui.addChild(new Drawn(options.header))
  tui.addChild(sections)
  tui.addChild(live)
  tui.addChild(questions)
  // Written again whenever they change or the screen is redrawn whole: in as few bytes as they can be.
  tui.addChild(new Compacted(spinnerSlot))
  tui.addChild(new Compacted(editor))
  tui.addChild(new Drawn(options.footer))
  const focusNow = (): Component => choice ?? gate.open() ?? editor
  const applyFocus = () => {
    tui.setFocus(focusNow())
    redraw()
  }
  const gate = new QuestionGate<Card>(options.clock ?? systemClock, QUESTION_QUIET_MS, applyFocus)
  // Before the session's own keys: a key it takes is typing too, and keeps a new question waiting.
  tui.addInputListener(() => {
    if (focusNow() === editor) gate.keyElsewhere()
    return undefined
  })
  tui.addInputListener((data) => (options.onKey(data) ? { consume: true } : undefined))

  const layoutQuestions = () => {
    questions.clear()
    if (choice !== undefined) questions.addChild(choice)
    else if (cards[0] !== undefined) questions.addChild(cards[0])
    // A question is on screen once the screen is drawn and no list covers it.
    gate.show(started && choice === undefined ? cards[0] : undefined)
    applyFocus()
  }

  return {
    tui,
    editor,
    completion,
    render: () => redraw(),
    start: () => {
      tui.start()
      started = true
      layoutQuestions()
    },
    stop: () => {
      gate.stop()
      spinner?.stop()
      tui.stop()
    },
    /** A timeline drawn below the ones before it. */
    addTimeline: (timeline: Timeline) => {
      sections.add(new Transcript(timeline, t))
      redraw()
    },
    /** Whether the editor has the keys (no list, and no question that takes them yet). */
    editorHasFocus: () => focusNow() === editor,
    addCard: (card: Card) => {
      if (cards.some((held) => held.toolCallId === card.toolCallId)) return
      cards.push(card)
      layoutQuestions()
    },
    /** Takes a question off the screen; true when it was there. */
    removeCard: (toolCallId: string): boolean => {
      const index = cards.findIndex((card) => card.toolCallId === toolCallId)
      if (index === -1) return false
      cards.splice(index, 1)
      layoutQuestions()
      return true
    },
    clearCards: () => {
      cards.length = 0
      layoutQuestions()
    },
    hasCards: () => cards.length > 0,
    /** A list to pick from, above any question; `done` gets the choice, or undefined when left with Esc. */
    choose: <A>(title: string, choices: ReadonlyArray<Choice<A>>, filterable: boolean, done: (value: A | undefined) => void) => {
      const list = new ChoiceList<A>(
        {
          title,
          choices,
          filterable,
          onChoose: (value) => {
            choice = undefined
            layoutQuestions()
            done(value)
          },
          onCancel: () => {
            choice = undefined
            layoutQuestions()
            done(undefined)
          }
        },
        t
      )
      choice = list
      layoutQuestions()
    },
    choosing: () => choice !== undefined,
    /**
     * The terminal's bell: a question waits. Terminals turn it into a sound, a flash or a mark
     * on the tab or window when it is in the background (most can send it on as a desktop
     * notification).
     */
    bell: () => {
      if (started) tui.bell()
    },
    /** The spinner under the conversation while a turn runs and nothing waits for an answer. */
    setSpinner: (message: string | undefined) => {
      if (message === undefined) {
        spinner?.stop()
        spinner = undefined
        spinnerSlot.clear()
        return redraw()
      }
      if (spinner === undefined) {
        spinner = new Loader(tui, t.cyan, t.dim, message)
        spinnerSlot.addChild(spinner)
      } else spinner.setMessage(message)
      redraw()
    }
  }
}

export type Screen = ReturnType<typeof makeScreen>
