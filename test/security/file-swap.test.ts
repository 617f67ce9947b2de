import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { editFileTool } from "../../src/layers/tools/edit-file.js"
import { readFileTool } from "../../src/layers/tools/read-file.js"
import { writeFileTool } from "../../src/layers/tools/write-file.js"
import type { Tool } from "../../src/services/ToolRouter.js"
import { prepare, tempOutside, tempWorkspace } from "../layers/tools/workspace-fixture.js"

/**
 * Found by the attacker pass of issue 30: a file tool judged a path inside the workspace, and
 * a process running meanwhile (a sandboxed MCP server, in a loop) swapped the name for a link
 * out before the tool opened it: `write_file notes.txt` wrote `~/.bashrc`, `read_file` returned
 * `~/.ssh/id_rsa`. Here the swap happens deterministically between the judgement (prepare, then
 * the permission check) and the call; the call must refuse and touch nothing outside.
 */

const SECRET = "OUTSIDE-SECRET-CANARY"

/** Prepares `input` on `tool` over a plain file, swaps the file for a link out, then runs the call. */
const swapped = (tool: Tool, input: Readonly<Record<string, unknown>>, name: string) =>
  Effect.gen(function* () {
    const ws = yield* tempWorkspace
    const outside = yield* tempOutside
    const target = join(outside, "victim.txt")
    writeFileSync(target, `${SECRET}\nold line\n`)
    writeFileSync(join(ws, name), "old line\n")
    const call = yield* prepare(tool, input, ws)
    expect(call.outsideWorkspace).toBe(false)
    // The swap, as a racing process does it: a link made aside, renamed over the name.
    symlinkSync(target, join(ws, ".swap"))
    renameSync(join(ws, ".swap"), join(ws, name))
    const result = yield* call.execute
    return { result, victim: readFileSync(target, "utf8") }
  })

describe("a file tool touches only the file it was judged on", () => {
  it.scoped("write_file: a link swapped in after the judgement is refused; the outside file is unchanged", () =>
    Effect.gen(function* () {
      const { result, victim } = yield* swapped(writeFileTool, { path: "notes.txt", content: "echo pwned\n" }, "notes.txt")
      expect(result.isError).toBe(true)
      expect(result.output).toContain("where the call was judged")
      expect(victim).toBe(`${SECRET}\nold line\n`)
    }))

  it.scoped("edit_file: the same swap is refused", () =>
    Effect.gen(function* () {
      const { result, victim } = yield* swapped(editFileTool, { path: "notes.txt", old_string: "old line", new_string: "echo pwned" }, "notes.txt")
      expect(result.isError).toBe(true)
      expect(victim).toBe(`${SECRET}\nold line\n`)
    }))

  it.scoped("read_file: the same swap returns nothing of the outside file", () =>
    Effect.gen(function* () {
      const { result } = yield* swapped(readFileTool, { path: "notes.txt" }, "notes.txt")
      expect(result.isError).toBe(true)
      expect(result.output).not.toContain(SECRET)
    }))

  it.scoped("positive control: with nothing swapped, the write lands", () =>
    Effect.gen(function* () {
      const ws = yield* tempWorkspace
      writeFileSync(join(ws, "notes.txt"), "old\n")
      const call = yield* prepare(writeFileTool, { path: "notes.txt", content: "new\n" }, ws)
      const result = yield* call.execute
      expect(result.isError).toBe(false)
      expect(readFileSync(join(ws, "notes.txt"), "utf8")).toBe("new\n")
    }))
})
