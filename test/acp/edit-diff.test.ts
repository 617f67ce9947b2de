import type { ToolCallUpdate } from "@agentclientprotocol/sdk/unstable"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { writeFileSync } from "node:fs"
import { join, relative } from "node:path"
import { withEditDiff } from "../../src/acp/edit-diff.js"
import { LocalFileAccess } from "../../src/layers/tools/local-file-access.js"
import { makeTemp } from "../support/temp-dirs.js"

const temp = makeTemp()
afterAll(() => temp.cleanup())

const detail = [{ type: "content" as const, content: { type: "text" as const, text: "the detail" } }]
const question = (name: string, rawInput: unknown): ToolCallUpdate => ({ toolCallId: "call_1", name, rawInput, content: detail })

describe("ACP permission questions: an edit as a diff", () => {
  const cwd = temp.dir("acp-diff-")
  const outside = temp.dir("acp-outside-")
  writeFileSync(join(cwd, "a.txt"), "one\ntwo\none\n")
  writeFileSync(join(outside, "secret.txt"), "not to be read\n")
  const shown = (name: string, input: unknown) => withEditDiff({ sessionId: "ses_1", cwd, files: LocalFileAccess }, question(name, input)).pipe(Effect.map((call) => call.content))

  it.effect("shows write_file and edit_file as whole-file diffs: the file as it is, and as it would be", () =>
    Effect.gen(function* () {
      expect(yield* shown("write_file", { path: "a.txt", content: "new\n" })).toEqual([{ type: "diff", path: join(cwd, "a.txt"), oldText: "one\ntwo\none\n", newText: "new\n" }])
      expect(yield* shown("write_file", { path: "sub/b.txt", content: "b\n" })).toEqual([{ type: "diff", path: join(cwd, "sub/b.txt"), oldText: null, newText: "b\n" }])
      expect(yield* shown("edit_file", { path: join(cwd, "a.txt"), old_string: "one", new_string: "1", replace_all: true })).toEqual([
        { type: "diff", path: join(cwd, "a.txt"), oldText: "one\ntwo\none\n", newText: "1\ntwo\n1\n" }
      ])
    })
  )

  it.effect("keeps the text detail when no truthful diff exists: outside the workspace, an edit that would not apply, other tools", () =>
    Effect.gen(function* () {
      expect(yield* shown("write_file", { path: join(outside, "secret.txt"), content: "x" })).toEqual(detail)
      expect(yield* shown("edit_file", { path: relative(cwd, join(outside, "secret.txt")), old_string: "not", new_string: "now" })).toEqual(detail)
      expect(yield* shown("edit_file", { path: "a.txt", old_string: "one", new_string: "1" })).toEqual(detail)
      expect(yield* shown("edit_file", { path: "missing.txt", old_string: "x", new_string: "y" })).toEqual(detail)
      expect(yield* shown("shell", { command: "rm -rf /" })).toEqual(detail)
      expect(yield* shown("write_file", { path: "a.txt" })).toEqual(detail)
    })
  )
})
