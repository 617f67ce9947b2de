import { type AutocompleteItem, type AutocompleteProvider, type AutocompleteSuggestions, CombinedAutocompleteProvider, type SlashCommand } from "@mariozechner/pi-tui"
import { readdirSync } from "node:fs"
import { join } from "node:path"
import { safeInline } from "./safe-text.js"

/** Folders nobody attaches from: left out of `@` suggestions (they can still be typed). */
const SKIPPED = new Set([".git", "node_modules"])

const MAX_SUGGESTIONS = 30

/** The `@path` being typed just before the cursor, if any (`@` at the start or after a space). */
export const atPrefix = (beforeCursor: string): string | undefined => /(?:^|\s)(@[^\s@]*)$/.exec(beforeCursor)?.[1]

/**
 * Names in the folder the `@path` so far points into (relative to the workspace) that start
 * with its last part: folders first (with `/`, to go on into them), then files. Read from the
 * disk each time: a listing, never a file's content.
 */
export const atSuggestions = (cwd: string, typed: string): ReadonlyArray<AutocompleteItem> => {
  const path = typed.slice(1)
  const slash = path.lastIndexOf("/")
  const dir = slash === -1 ? "" : path.slice(0, slash + 1)
  const start = (slash === -1 ? path : path.slice(slash + 1)).toLowerCase()
  let entries: ReadonlyArray<{ readonly name: string; readonly folder: boolean }>
  try {
    entries = readdirSync(join(cwd, dir), { withFileTypes: true }).map((entry) => ({ name: entry.name, folder: entry.isDirectory() }))
  } catch {
    // A folder that is not there (or not readable) has nothing to suggest.
    return []
  }
  return entries
    // A name with control characters would be written into the editor as it is: not offered.
    .filter((entry) => !/[\x00-\x1f\x7f-\x9f]/.test(entry.name))
    .filter((entry) => entry.name.toLowerCase().startsWith(start) && !SKIPPED.has(entry.name) && (start.startsWith(".") || !entry.name.startsWith(".")))
    .sort((a, b) => (a.folder === b.folder ? a.name.localeCompare(b.name) : a.folder ? -1 : 1))
    .slice(0, MAX_SUGGESTIONS)
    .map((entry) => {
      const label = `${entry.name}${entry.folder ? "/" : ""}`
      // The editor shows what it is given: a name's bidi or zero-width character as `<U+XXXX>`.
      return { value: safeInline(`@${dir}${label}`), label: safeInline(label) }
    })
}

/**
 * The editor's completion: slash commands (after `/` at the start) as pi-tui offers them, and
 * `@path` from the workspace's folders (pi-tui's own `@` search needs the `fd` program).
 */
export class SessionCompletion implements AutocompleteProvider {
  readonly #cwd: string
  readonly #redraw: () => void
  #combined: CombinedAutocompleteProvider

  /**
   * `redraw` asks for a frame: pi-tui's editor takes the suggestions after its own frame was
   * asked for and asks for none itself, so without it the list would show one key late.
   */
  constructor(cwd: string, commands: ReadonlyArray<SlashCommand>, redraw: () => void) {
    this.#cwd = cwd
    this.#redraw = redraw
    this.#combined = new CombinedAutocompleteProvider([...commands], cwd)
  }

  /** The commands offered after `/` (the session's own and the workspace's command files). */
  setCommands(commands: ReadonlyArray<SlashCommand>): void {
    this.#combined = new CombinedAutocompleteProvider([...commands], this.#cwd)
  }

  async getSuggestions(
    lines: Array<string>,
    cursorLine: number,
    cursorCol: number,
    options: { signal: AbortSignal; force?: boolean }
  ): Promise<AutocompleteSuggestions | null> {
    // After the editor has taken what this returns (it does so in the same run of promise callbacks).
    setTimeout(this.#redraw, 0)
    const typed = atPrefix((lines[cursorLine] ?? "").slice(0, cursorCol))
    if (typed === undefined) return this.#combined.getSuggestions(lines, cursorLine, cursorCol, options)
    const items = atSuggestions(this.#cwd, typed)
    return items.length === 0 ? null : { items: [...items], prefix: typed }
  }

  applyCompletion(lines: Array<string>, cursorLine: number, cursorCol: number, item: AutocompleteItem, prefix: string) {
    return this.#combined.applyCompletion(lines, cursorLine, cursorCol, item, prefix)
  }

  shouldTriggerFileCompletion(lines: Array<string>, cursorLine: number, cursorCol: number): boolean {
    return this.#combined.shouldTriggerFileCompletion(lines, cursorLine, cursorCol)
  }
}
