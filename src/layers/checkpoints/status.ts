import * as Either from "effect/Either"

/** What `git status --porcelain=v2 -z --branch` says about our index against HEAD and the work tree. */
export interface WorkTreeStatus {
  /** The last checkpoint commit; undefined before the first. */
  readonly head: string | undefined
  /** The index differs from HEAD (a drift or restore staged something, or an earlier snapshot stopped half-way). */
  readonly staged: boolean
  /** Paths in the index whose work-tree file differs in content, mode or type. */
  readonly modified: ReadonlyArray<string>
  /** Paths in the index with no work-tree file any more. */
  readonly deleted: ReadonlyArray<string>
  /** Files not in the index and not ignored; a folder none of whose files is in the index ends in `/`. */
  readonly untracked: ReadonlyArray<string>
}

/** The path after `fields` space-separated fields (a path itself may hold spaces). */
const pathAfter = (record: string, fields: number): string | undefined => {
  let at = 0
  for (let i = 0; i < fields; i++) {
    at = record.indexOf(" ", at) + 1
    if (at === 0) return undefined
  }
  return record.slice(at)
}

/** Parses the NUL-separated records, or says which one it did not understand. */
export const parseStatus = (records: ReadonlyArray<string>): Either.Either<WorkTreeStatus, string> => {
  let head: string | undefined
  let staged = false
  const modified: Array<string> = []
  const deleted: Array<string> = []
  const untracked: Array<string> = []
  for (let i = 0; i < records.length; i++) {
    const record = records[i] ?? ""
    const kind = record.slice(0, 2)
    if (kind === "# ") {
      const oid = /^# branch\.oid ([0-9a-f]+)$/.exec(record)
      if (oid !== null) head = oid[1]
      continue
    }
    if (kind === "? ") {
      untracked.push(record.slice(2))
      continue
    }
    // "1 XY ..." has 8 fields before its path, a rename "2 ..." 9 and its old path as the next record,
    // an unmerged "u ..." 10. Renames are off and nothing merges here, but neither may misparse.
    const fields = kind === "1 " ? 8 : kind === "2 " ? 9 : kind === "u " ? 10 : undefined
    const path = fields === undefined ? undefined : pathAfter(record, fields)
    if (path === undefined || path === "") return Either.left(`unexpected status record ${JSON.stringify(record.slice(0, 200))}`)
    if (kind === "2 ") i++
    const indexSide = record[2]
    const workSide = record[3]
    if (indexSide !== "." || kind !== "1 ") staged = true
    if (workSide === "D") deleted.push(path)
    else if (workSide !== "." || kind === "u ") modified.push(path)
  }
  return Either.right({ head, staged, modified, deleted, untracked })
}
