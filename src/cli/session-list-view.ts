import type { SessionListItem } from "../domain/host.js"
import { relativeTime } from "../domain/relative-time.js"
import { underParents } from "../domain/session-tree.js"
import { isWithin } from "../layers/tools/workspace-paths.js"
import { sanitizeInline, type TerminalText, term } from "./terminal-text.js"

/** How `sessions list` shows the host's listing. */
export interface ListView {
  /** Every workspace and archived sessions too; else this workspace's live ones. */
  readonly all: boolean
  /** At most this many lines of sessions, newest first. */
  readonly limit: number
  /** The directory the command runs in: its sessions (and those of folders inside it) come first. */
  readonly workspace: string
  /** The terminal's columns: titles are cut to fit. */
  readonly width: number
  readonly now: number
  /** Shown as `~` in workspace headings. */
  readonly home?: string | undefined
}

/** What the listing left out, for the line that says how to see it. */
export interface Hidden {
  readonly elsewhere: number
  readonly archived: number
  readonly beyondLimit: number
}

export interface Listing {
  readonly text: TerminalText
  readonly shown: number
  readonly hidden: Hidden
}

const inWorkspace = (workspace: string) => (item: SessionListItem) => item.cwd !== undefined && isWithin(workspace, item.cwd)

/** What the session is doing, as the web page says it: a question waiting, a failed last turn, archived. */
const statusOf = (item: SessionListItem) => {
  if (item.status === "running" && (item.waitingQuestions ?? 0) > 0) return "waiting"
  if (item.status !== "idle") return item.status
  if (item.archived) return "archived"
  return item.lastStopReason === "error" ? "failed" : "idle"
}

const shortPath = (path: string, home: string | undefined) =>
  home !== undefined && home !== "/" && isWithin(home, path) ? `~${path.slice(home.length)}` : path

/** Cut to `width` characters (of the sanitized text, what the terminal shows), ending in `…`. */
const cut = (text: string, width: number) => {
  const chars = [...text]
  return chars.length <= width ? text : `${chars.slice(0, Math.max(1, width - 1)).join("")}…`
}

const pad = (text: string, width: number) => text + " ".repeat(Math.max(0, width - [...text].length))

interface Arranged {
  readonly rows: ReadonlyArray<{ readonly group: string; readonly item: SessionListItem; readonly depth: number }>
  readonly elsewhere: number
  readonly archived: number
}

/** What the view shows, in order: this workspace's group first, each session's subagents under it. */
const arrange = (items: ReadonlyArray<SessionListItem>, view: ListView): Arranged => {
  const here = inWorkspace(view.workspace)
  const visible = view.all ? items : items.filter((item) => here(item) && !item.archived)
  // Groups keep the listing's order (newest activity first); this workspace's group leads.
  const groups = new Map<string, Array<SessionListItem>>()
  for (const item of [...visible.filter(here), ...visible.filter((item) => !here(item))]) {
    const key = view.all ? (here(item) ? view.workspace : (item.cwd ?? "")) : ""
    groups.set(key, [...(groups.get(key) ?? []), item])
  }
  return {
    rows: [...groups].flatMap(([group, members]) => underParents(members).map(({ row, depth }) => ({ group, item: row, depth }))),
    elsewhere: view.all ? 0 : items.filter((item) => !here(item)).length,
    archived: view.all ? 0 : items.filter((item) => here(item) && item.archived).length
  }
}

/** The sessions the view shows, in its order: what `--json` prints. */
export const listedItems = (items: ReadonlyArray<SessionListItem>, view: ListView): ReadonlyArray<SessionListItem> =>
  arrange(items, view)
    .rows.slice(0, view.limit)
    .map((row) => row.item)

/**
 * The listing as lines that fit the terminal: SESSION, STATUS, UPDATED (relative) and TITLE,
 * a subagent's session under its parent (└). With `all`, grouped under each workspace's path,
 * this one first. Every cell is content, sanitized, so a title can neither forge a row nor
 * move the cursor.
 */
export const sessionListing = (items: ReadonlyArray<SessionListItem>, view: ListView): Listing => {
  const arranged = arrange(items, view)
  const rows = arranged.rows.map(({ group, item, depth }) => ({
    group,
    cells: [`${depth === 0 ? "" : `${"  ".repeat(depth - 1)}└ `}${item.sessionId}`, statusOf(item), relativeTime(item.updatedAt, view.now), item.title ?? ""].map(
      (cell) => sanitizeInline(cell).text
    )
  }))
  const shownRows = rows.slice(0, view.limit)
  const indent = view.all ? "  " : ""
  const header = ["SESSION", "STATUS", "UPDATED", "TITLE"]
  const widths = [0, 1, 2].map((i) => Math.max((header[i] ?? "").length, ...shownRows.map((row) => [...(row.cells[i] ?? "")].length)))
  const fixed = indent.length + widths.reduce((sum, w) => sum + w + 2, 0)
  // Below a dozen characters a title says nothing: it wraps instead.
  const titleWidth = view.width - fixed >= 12 ? view.width - fixed : Number.POSITIVE_INFINITY
  const line = (cells: ReadonlyArray<string>) =>
    (indent + cells.map((cell, i) => (i < 3 ? pad(cell, widths[i] ?? 0) : cut(cell, titleWidth))).join("  ")).trimEnd()
  const out: Array<string> = [line(header)]
  let group: string | undefined
  for (const row of shownRows) {
    if (view.all && row.group !== group) {
      group = row.group
      const name = group === "" ? "(no workspace)" : cut(sanitizeInline(shortPath(group, view.home)).text, view.width - 20)
      out.push(group === view.workspace ? `${name} (this workspace)` : name)
    }
    out.push(line(row.cells))
  }
  return {
    // Every cell was made visible above; the whole is sanitized again on its way out all the same.
    text: term`${out.join("\n")}\n`,
    shown: shownRows.length,
    hidden: { elsewhere: arranged.elsewhere, archived: arranged.archived, beyondLimit: rows.length - shownRows.length }
  }
}
