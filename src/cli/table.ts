import { sanitizeInline, type TerminalText, term } from "./terminal-text.js"

const pad = (text: string, width: number) => (text.length >= width ? text : text + " ".repeat(width - text.length))

/**
 * A header and rows as left-aligned columns two spaces apart, one line each (newline-ended):
 * every listing of the CLI lines up the same way. Trailing spaces are trimmed, so an empty last
 * cell leaves no blanks for `grep`/`diff` to trip on. A cell is content (a title, a path): its
 * newlines, tabs and controls are shown visibly, so it can neither forge a row nor move the cursor.
 */
export const formatTable = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): TerminalText => {
  const cells = [header, ...rows].map((row) => row.map((cell) => sanitizeInline(cell).text))
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? "").length)))
  const format = (row: ReadonlyArray<string>) => row.map((cell, i) => pad(cell, widths[i] ?? 0)).join("  ").trimEnd()
  return term`${cells.map(format).join("\n")}\n`
}
