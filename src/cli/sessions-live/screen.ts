import type { SessionListItem } from "../../domain/host.js"
import { relativeTime } from "../../domain/relative-time.js"
import { isWithin } from "../../layers/tools/workspace-paths.js"
import { paint, sanitizeInline, type Style, type TerminalText, term } from "../terminal-text.js"
import { type LiveState, type LiveStatus, listedSessions, liveStatus } from "./model.js"

export interface ScreenSize {
  readonly width: number
  readonly height: number
}

export interface Look {
  readonly color: boolean
  readonly now: number
  /** Shown as `~` in workspace paths. */
  readonly home: string | undefined
  /** At most this many sessions done, failed or interrupted. */
  readonly limit: number
  /** Where the list comes from, said in the heading: `local host` or `store`. */
  readonly source: string
}

const tone: Readonly<Record<LiveStatus, Style>> = { waiting: "33", running: "36", failed: "31", interrupted: "31", done: "2" }

const shortPath = (path: string | undefined, home: string | undefined) => {
  if (path === undefined) return "(no workspace)"
  return home !== undefined && home !== "/" && isWithin(home, path) ? `~${path.slice(home.length)}` : path
}

/** Cut to `width` characters of the sanitized text (what the terminal shows), ending in `…`. */
const cut = (text: string, width: number) => {
  const chars = [...text]
  return chars.length <= width ? text : `${chars.slice(0, Math.max(0, width - 1)).join("")}…`
}

const pad = (text: string, width: number) => text + " ".repeat(Math.max(0, width - [...text].length))

const HEADER = ["STATUS", "SESSION", "UPDATED", "WORKSPACE", "TITLE"] as const

/** Each listed session's cells, every one sanitized onto one line: a title can neither forge a row nor move the cursor. */
const cellsOf = (item: SessionListItem, look: Look): ReadonlyArray<string> => {
  const status = liveStatus(item)
  const waiting = item.waitingQuestions ?? 0
  return [
    status === "waiting" && waiting > 1 ? `waiting (${waiting})` : status,
    item.parentSessionId === undefined ? item.sessionId : `└ ${item.sessionId}`,
    relativeTime(item.updatedAt, look.now),
    shortPath(item.cwd, look.home),
    item.title ?? ""
  ].map((cell) => sanitizeInline(cell).text)
}

/** The table's lines, fitted to `width`: the workspace column gives way first, then the title. */
const table = (items: ReadonlyArray<SessionListItem>, width: number, look: Look) => {
  const rows = items.map((item) => ({ item, cells: cellsOf(item, look) }))
  const widths = [0, 1, 2, 3].map((i) => Math.max(HEADER[i]?.length ?? 0, ...rows.map((row) => [...(row.cells[i] ?? "")].length)))
  const room = width - 2
  const fixed = (widths[0] ?? 0) + (widths[1] ?? 0) + (widths[2] ?? 0) + 6
  const workspace = Math.max(8, Math.min(widths[3] ?? 0, Math.floor((room - fixed) / 2)))
  const title = Math.max(0, room - fixed - workspace - 2)
  const line = (cells: ReadonlyArray<string>) =>
    cut(
      [pad(cells[0] ?? "", widths[0] ?? 0), pad(cells[1] ?? "", widths[1] ?? 0), pad(cells[2] ?? "", widths[2] ?? 0), pad(cut(cells[3] ?? "", workspace), workspace), cut(cells[4] ?? "", title)]
        .join("  ")
        .trimEnd(),
      room
    )
  return { header: line(HEADER), rows: rows.map((row) => ({ item: row.item, text: line(row.cells) })) }
}

/** The listing printed once (piped, `--once`): the view's rows without its selection and keys. */
export const onceListing = (state: LiveState, width: number, look: Look): TerminalText => {
  const items = listedSessions(state, look.limit)
  if (items.length === 0) return term`no running or recent sessions\n`
  const { header, rows } = table(items, width + 2, look)
  return term`${[header, ...rows.map((row) => row.text)].join("\n")}\n`
}

/** The question shown for the selected session, in a few lines: its tool, risk, summary and the start of its detail. */
const questionLines = (state: LiveState, width: number, color: boolean): ReadonlyArray<TerminalText> => {
  if (state.asking === undefined) return []
  const { sessionId, question } = state.asking
  const inline = (text: string) => cut(sanitizeInline(text).text, width - 4)
  const detail = (question.detail ?? "").split("\n").filter((line) => line.trim() !== "").slice(0, 6)
  return [
    term``,
    paint(color, "33")(cut(`${sessionId} asks to run ${sanitizeInline(question.tool).text} (${question.risk})`, width - 2)),
    term`  ${inline(question.summary)}`,
    ...detail.map((line) => term`  ${paint(color, "2")(inline(line))}`),
    term`  ${paint(color, "1")(cut("[y] allow once  [n] deny  [Enter] open the session  [Esc] back", width - 4))}`
  ]
}

/**
 * The live view's screen: a heading with the counts, the table with the selected row marked,
 * the question being answered (when one is), a note, and the keys. At most `height` lines, each
 * narrower than the terminal; when the rows do not fit, those around the selection show.
 */
export const liveScreen = (state: LiveState, size: ScreenSize, look: Look): ReadonlyArray<TerminalText> => {
  const items = listedSessions(state, look.limit)
  const count = (status: LiveStatus) => items.filter((item) => liveStatus(item) === status).length
  const counts = [`${count("running")} running`, `${count("waiting")} waiting for an answer`].join(", ")
  const heading = paint(look.color, "1")(cut(`custom-agent sessions · ${look.source} · ${counts}`, size.width - 1))
  const keys = paint(look.color, "2")(cut(`↑↓ select · Enter open the session · a answer its question · q quit`, size.width - 1))
  const note = state.note === undefined ? [] : [term`${cut(sanitizeInline(state.note).text, size.width - 1)}`]
  const question = questionLines(state, size.width, look.color)
  if (items.length === 0) return [heading, term``, term`no running or recent sessions`, ...note, term``, keys]
  const { header, rows } = table(items, size.width - 1, look)
  const room = Math.max(1, size.height - 5 - question.length - note.length)
  const at = Math.max(0, rows.findIndex((row) => row.item.sessionId === state.selected))
  const first = Math.min(Math.max(0, at - Math.floor(room / 2)), Math.max(0, rows.length - room))
  const shown = rows.slice(first, first + room).map((row) => {
    const selected = row.item.sessionId === state.selected
    return term`${paint(look.color, "1")(selected ? "› " : "  ")}${paint(look.color, tone[liveStatus(row.item)])(row.text)}`
  })
  return [heading, term``, term`  ${paint(look.color, "2")(header)}`, ...shown, ...question, ...note, term``, keys]
}
