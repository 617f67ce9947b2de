import { visibleWidth } from "@mariozechner/pi-tui"

/**
 * Characters pi-tui measures as one column each that never join a neighbour into one
 * grapheme: printable ASCII and the symbols the views draw (marks, separators, borders).
 * test/cli/view/width.test.ts holds each to pi-tui's measure.
 */
export const NARROW_SYMBOLS = "·…─│└›✓✗⊘⋯▸☐↺✎⧗↪◆▾∴↑↓←→×"
const narrowOnly = new RegExp(`^[\\x20-\\x7e${NARROW_SYMBOLS}]*$`)
const sgrCodes = /\x1b\[[0-9;]*m/g

/**
 * Terminal columns, measured the way pi-tui measures them (the interactive session draws with
 * it): a wide (CJK) character takes two, an SGR colour none. A line of plain text, marks and
 * colours is counted directly: pi-tui splits every other line into graphemes and tests each
 * against Unicode property patterns (its first `✓` compiles the emoji one), which was most of
 * the time a resumed session's tool lines took to draw.
 */
export const textWidth = (text: string): number => {
  const plain = text.includes("\x1b") ? text.replace(sgrCodes, "") : text
  return narrowOnly.test(plain) ? plain.length : visibleWidth(text)
}

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" })

const graphemes = (text: string): Array<string> => Array.from(segmenter.segment(text), (part) => part.segment)

/** Graphemes taken from the front of `parts` while they fit in `width` columns. */
const taken = (parts: ReadonlyArray<string>, width: number): Array<string> => {
  const kept: Array<string> = []
  let used = 0
  for (const part of parts) {
    const w = textWidth(part)
    if (used + w > width) break
    kept.push(part)
    used += w
  }
  return kept
}

/** Plain text (no escapes) in at most `width` columns, its start kept: `…` ends a cut one. */
export const fitEnd = (text: string, width: number): string => {
  if (textWidth(text) <= width) return text
  if (width <= 0) return ""
  return `${taken(graphemes(text), width - 1).join("")}…`
}

/** Plain text (no escapes) in at most `width` columns, its end kept (a path's file name): `…` starts a cut one. */
export const fitStart = (text: string, width: number): string => {
  if (textWidth(text) <= width) return text
  if (width <= 0) return ""
  return `…${taken(graphemes(text).reverse(), width - 1).reverse().join("")}`
}
