/**
 * Edit distance where swapping two neighbouring letters counts as one edit (optimal string
 * alignment): `plna` is one edit from `plan`, as a person would count it.
 */
export const editDistance = (a: string, b: string): number => {
  const rows = a.length + 1
  const cols = b.length + 1
  const d: Array<Array<number>> = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)))
  const at = (i: number, j: number) => d[i]?.[j] ?? Number.POSITIVE_INFINITY
  for (let i = 1; i < rows; i++) {
    const row = d[i]
    if (row === undefined) continue
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1)
      row[j] = best
    }
  }
  return at(a.length, b.length)
}

/** How many edits still look like a typo of a word this long, not another word. */
const tolerance = (length: number) => (length <= 3 ? 1 : length <= 6 ? 2 : 3)

/**
 * The candidate `input` most likely meant: the nearest within a typo's distance, else the only
 * one it is the start of (`--sess` for `--session`). Case is ignored; none when nothing is close.
 */
export const closest = (input: string, candidates: ReadonlyArray<string>): string | undefined => {
  const typed = input.toLowerCase()
  let best: { readonly candidate: string; readonly distance: number } | undefined
  for (const candidate of candidates) {
    const distance = editDistance(typed, candidate.toLowerCase())
    if (distance <= tolerance(candidate.length) && (best === undefined || distance < best.distance)) best = { candidate, distance }
  }
  if (best !== undefined) return best.candidate
  const extensions = candidates.filter((candidate) => typed.length >= 2 && candidate.toLowerCase().startsWith(typed))
  return extensions.length === 1 ? extensions[0] : undefined
}

/** `; did you mean X?` when something is close, else nothing. */
export const didYouMean = (input: string, candidates: ReadonlyArray<string>): string => {
  const found = closest(input, candidates)
  return found === undefined ? "" : `; did you mean ${found}?`
}
