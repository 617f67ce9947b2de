import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { planStaging } from "../../../src/layers/checkpoints/caps.js"
import { nulFields } from "../../../src/layers/checkpoints/git.js"
import { parseStatus } from "../../../src/layers/checkpoints/status.js"
import { workspacePath } from "../../../src/layers/checkpoints/restore.js"

const HASH = "a".repeat(40)

describe("git status --porcelain=v2 -z", () => {
  it("reads the head, work-tree changes, deletions and untracked names, whatever characters the names hold", () => {
    const output = Buffer.from(
      [
        `# branch.oid ${HASH}`,
        "# branch.head checkpoints",
        `1 .M N... 100644 100644 100644 ${HASH} ${HASH} with space/and\nnewline`,
        `1 .T N... 100644 100644 120000 ${HASH} ${HASH} typed`,
        `1 .D N... 100644 100644 000000 ${HASH} ${HASH} gone ü`,
        "? new file",
        "? new folder/",
        ""
      ].join("\0"),
      "utf8"
    )
    expect(parseStatus(nulFields(output))).toEqual(
      Either.right({
        head: HASH,
        staged: false,
        modified: ["with space/and\nnewline", "typed"],
        deleted: ["gone ü"],
        untracked: ["new file", "new folder/"]
      })
    )
  })

  it("says the index was staged for index-side changes, reads a rename's two records, and refuses what it does not know", () => {
    const staged = parseStatus([
      "# branch.oid (initial)",
      `1 M. N... 100644 100644 100644 ${HASH} ${HASH} a`,
      `2 R. N... 100644 100644 100644 ${HASH} ${HASH} R100 new name`,
      "old name"
    ])
    expect(staged).toEqual(Either.right({ head: undefined, staged: true, modified: [], deleted: [], untracked: [] }))
    expect(Either.isLeft(parseStatus(["1 .M short"]))).toBe(true)
    expect(Either.isLeft(parseStatus(["x something"]))).toBe(true)
  })
})

describe("the caps", () => {
  const caps = { maxFileBytes: 100, maxSnapshotBytes: 150 }
  const file = (path: string, bytes: number, tracked = false) => ({ path, tracked, disk: { _tag: "file" as const, bytes } })

  it("keeps files in path order until the snapshot's budget is spent, and a smaller one after still fits", () => {
    const plan = planStaging([file("d", 10), file("b", 80), file("a", 60), file("c", 20), file("e", 101, true)], caps)
    expect(plan.add).toEqual(["a", "b", "d"])
    expect(plan.remove).toEqual(["e"])
    expect(plan.notKept).toEqual([
      { path: "c", reason: "snapshot_too_large", bytes: 20 },
      { path: "e", reason: "file_too_large", bytes: 101 }
    ])
  })

  it("takes tracked paths that are gone or unreadable out of the index, names unreadable files, and ignores the rest", () => {
    const plan = planStaging(
      [
        { path: "gone", tracked: true, disk: { _tag: "gone" } },
        { path: "locked", tracked: true, disk: { _tag: "unreadable", bytes: 6 } },
        { path: "vanished", tracked: false, disk: { _tag: "gone" } },
        { path: "fifo", tracked: false, disk: { _tag: "special" } },
        { path: "new-locked", tracked: false, disk: { _tag: "unreadable", bytes: 0 } }
      ],
      caps
    )
    expect(plan).toEqual({
      remove: ["gone", "locked"],
      add: [],
      notKept: [
        { path: "locked", reason: "unreadable", bytes: 6 },
        { path: "new-locked", reason: "unreadable", bytes: 0 }
      ]
    })
  })
})

describe("paths a restore accepts", () => {
  it("workspace-relative names only", () => {
    expect(workspacePath(".")).toBe("")
    expect(workspacePath("./a//b/")).toBe("a/b")
    expect(workspacePath("name with\nnewline")).toBe("name with\nnewline")
    for (const outside of ["", "..", "../a", "a/../../b", "a/..", "/etc", "a\0b"]) expect(workspacePath(outside)).toBeUndefined()
  })
})
