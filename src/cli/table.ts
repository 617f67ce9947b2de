const pad = (text: string, width: number) => (text.length >= width ? text : text + " ".repeat(width - text.length))

/**
 * A header and rows as left-aligned columns two spaces apart, one line each (newline-ended):
 * every listing of the CLI lines up the same way. Trailing spaces are trimmed, so an empty last
 * cell leaves no blanks for `grep`/`diff` to trip on.
 */
export const formatTable = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): string => {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)))
  const format = (row: ReadonlyArray<string>) => row.map((cell, i) => pad(cell, widths[i] ?? 0)).join("  ").trimEnd()
  return [format(header), ...rows.map(format)].join("\n") + "\n"
}
