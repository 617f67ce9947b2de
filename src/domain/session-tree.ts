/** A listed session with the session whose `task` call started it, if any. */
export interface TreeRow {
  readonly sessionId: string
  readonly parentSessionId?: string | undefined
}

/**
 * The listing with each subagent's session right under its parent's (and theirs under them),
 * `depth` levels in; everything else keeps its order. A child whose parent is not listed stays
 * where it was, at the top level.
 */
export const underParents = <R extends TreeRow>(rows: ReadonlyArray<R>): ReadonlyArray<{ readonly row: R; readonly depth: number }> => {
  const listed = new Set(rows.map((row) => row.sessionId))
  const children = new Map<string, Array<R>>()
  for (const row of rows) {
    const parent = row.parentSessionId
    if (parent === undefined || !listed.has(parent) || parent === row.sessionId) continue
    children.set(parent, [...(children.get(parent) ?? []), row])
  }
  const out: Array<{ readonly row: R; readonly depth: number }> = []
  const placed = new Set<string>()
  const place = (row: R, depth: number) => {
    // A log could name a cycle of parents (an import): each session is shown once.
    if (placed.has(row.sessionId)) return
    placed.add(row.sessionId)
    out.push({ row, depth })
    for (const child of children.get(row.sessionId) ?? []) place(child, depth + 1)
  }
  for (const row of rows) {
    const parent = row.parentSessionId
    if (parent === undefined || !listed.has(parent) || parent === row.sessionId) place(row, 0)
  }
  // Sessions only reachable through a cycle.
  for (const row of rows) place(row, 0)
  return out
}
