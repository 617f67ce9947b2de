import { FILE_HEADERS_ONLY, formatPatch, structuredPatch } from "diff"

export interface UnifiedDiff {
  /** `--- a/x` / `+++ b/x` headers and hunks with 3 lines of context; headers only when nothing changed. */
  readonly diff: string
  readonly added: number
  readonly removed: number
}

/** The unified diff from `before` (null: the file is new) to `after`, labelled with `name`. */
export const unifiedDiff = (name: string, before: string | null, after: string): UnifiedDiff => {
  const patch = structuredPatch(before === null ? "/dev/null" : `a/${name}`, `b/${name}`, before ?? "", after, undefined, undefined, {
    context: 3
  })
  let added = 0
  let removed = 0
  for (const hunk of patch.hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith("+")) added++
      else if (line.startsWith("-")) removed++
    }
  }
  return { diff: formatPatch(patch, FILE_HEADERS_ONLY), added, removed }
}
