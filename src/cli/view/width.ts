import { visibleWidth } from "@mariozechner/pi-tui"

/**
 * Terminal columns, measured the way pi-tui measures them (the interactive session draws with
 * it): a wide (CJK) character takes two, an SGR colour none.
 */
export const textWidth = (text: string): number => visibleWidth(text)

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
