import { describe, expect, it } from "@effect/vitest"
import { detailLines, type ToolCallView, toolDetail, toolLine, toolTarget } from "../../../src/cli/view/tool-line.js"
import { textWidth } from "../../../src/cli/view/width.js"

const call = (over: Partial<ToolCallView>): ToolCallView => ({ name: "read_file", input: { path: "src/a.ts" }, outcome: "ok", durationMs: 12, output: "", ...over })
const line = (view: ToolCallView, width: number, color = false) => toolLine(view, { width, color, indent: "  " }).text
const plain = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, "")

const deepPath = `src/${"very-long-directory-name/".repeat(6)}the-file-that-matters.ts`
const cjkPath = `docs/${"漢字".repeat(30)}/設計.md`
const unbroken = `src/${"x".repeat(200)}.ts`
const longCommand = `npm test -- --run ${"test/some/spec-file.test.ts ".repeat(8)}--reporter verbose`

describe("a tool call's line", () => {
  for (const width of [40, 80, 120]) {
    it(`fits ${width} columns whatever its path or command, wide characters counted twice`, () => {
      const views = [
        call({ input: { path: deepPath } }),
        call({ input: { path: cjkPath } }),
        call({ input: { path: unbroken } }),
        call({ name: "shell", input: { command: longCommand }, data: { _tag: "shell", command: longCommand, exitCode: 1, timedOut: false, truncated: false }, outcome: "error" }),
        call({ outcome: "error", output: `ENOENT: no such file ${"漢".repeat(80)}` }),
        call({ name: `mcp__${"server".repeat(20)}__tool`, input: { query: "q" } }),
        call({ outcome: "denied", name: "write_file", input: { path: deepPath, content: "x" } })
      ]
      for (const view of views) for (const color of [false, true]) expect(textWidth(line(view, width, color)), line(view, width)).toBeLessThanOrEqual(width)
    })
  }

  it("says the tool, what it acted on, how it ended and how long it took", () => {
    expect(line(call({}), 80)).toBe("  ✓ read_file src/a.ts · 12 ms")
    expect(line(call({ durationMs: 1530 }), 80)).toBe("  ✓ read_file src/a.ts · 1.5 s")
    expect(line(call({ outcome: "denied", name: "shell", input: { command: "rm -rf build" } }), 80)).toBe("  ✗ shell rm -rf build · denied")
    expect(line(call({ outcome: "error", output: "no such file: src/a.ts\nmore" }), 80)).toBe("  ✗ read_file src/a.ts · error · 12 ms · no such file: src/a.ts")
    const shell = call({ name: "shell", input: { command: "npm test" }, outcome: "error", output: "1 failed", data: { _tag: "shell", command: "npm test", exitCode: 1, timedOut: false, truncated: false } })
    expect(line(shell, 80)).toBe("  ✗ shell npm test · exit 1 · 12 ms")
    expect(line(call({ name: "grep", input: { pattern: "TODO", path: "src" } }), 80)).toBe("  ✓ grep TODO in src · 12 ms")
  })

  it("keeps a cut path's file name and a cut command's start", () => {
    const path = line(call({ input: { path: deepPath } }), 60)
    expect(path).toMatch(/^ {2}✓ read_file ….*the-file-that-matters\.ts · 12 ms$/)
    const command = line(call({ name: "shell", input: { command: longCommand } }), 60)
    expect(command).toMatch(/^ {2}✓ shell npm test -- --run .*… · 12 ms$/)
    expect(line(call({ input: { path: cjkPath } }), 40)).toContain("/設計.md · 12 ms")
    // A failed call keeps a share of the line for its reason.
    expect(line(call({ input: { path: deepPath }, outcome: "error", output: "ENOENT: no such file or directory" }), 80)).toMatch(/…[^ ]*-that-matters\.ts · error · 12 ms · ENOENT: no such file or direc…$/)
  })

  it("shows what content would make a terminal do, visibly, on the one line", () => {
    const shown = line(call({ name: "shell", input: { command: "npm test\r\x1b[2Ktouch X\nrm -rf ~" } }), 120, true)
    expect(plain(shown)).toBe("  ✓ shell npm test^M^[[2Ktouch X^Jrm -rf ~ · 12 ms")
  })

  it("colours its mark when colour is on, and writes no escape when it is off", () => {
    expect(line(call({}), 80, true)).toContain("\x1b[32m✓\x1b[0m")
    expect(line(call({ outcome: "error" }), 80, false)).not.toContain("\x1b")
  })
})

describe("what a tool call's line leaves out", () => {
  const diff = "Index: a.ts\n===\n--- a.ts\n+++ a.ts\n@@ -1 +1 @@\n-old line\n+new line\n"
  const edit = call({ name: "edit_file", data: { _tag: "edit", path: "a.ts", before: "old line\n", after: "new line\n", diff } })

  it("keeps the arguments, an edit's diff and the whole output, for a view that expands it", () => {
    const detail = toolDetail({ ...edit, output: "edited" })
    expect(JSON.parse(detail.arguments)).toEqual({ path: "src/a.ts" })
    expect(detail.diff).toBe(diff)
    expect(detail.output).toBe("edited")
  })

  it("under the line: an edit's diff without its file headers, a command's output bounded, each line fitted", () => {
    expect(detailLines(edit, { width: 80, color: false, maxLines: 20 }).map((l) => l.text)).toEqual(["--- a.ts", "+++ a.ts", "@@ -1 +1 @@", "-old line", "+new line"])
    const output = Array.from({ length: 30 }, (_, i) => `line ${i} ${"漢".repeat(50)}`).join("\n")
    const shell = call({ name: "shell", input: { command: "ls" }, output, data: { _tag: "shell", command: "ls", exitCode: 0, timedOut: false, truncated: false } })
    const lines = detailLines(shell, { width: 40, color: false, maxLines: 20, indent: "    " }).map((l) => l.text)
    expect(lines).toHaveLength(21)
    expect(lines.at(-1)).toBe("    … 10 more lines")
    for (const l of lines) expect(textWidth(l)).toBeLessThanOrEqual(40)
    expect(detailLines(call({}), { width: 80, color: false, maxLines: 20 })).toEqual([])
  })
})

describe("toolTarget", () => {
  it("finds the command, the path, the pattern, or what else names the call", () => {
    expect(toolTarget({ command: "ls" })).toEqual({ text: "ls", keep: "start" })
    expect(toolTarget({ path: "a/b.ts" })).toEqual({ text: "a/b.ts", keep: "end" })
    expect(toolTarget({ query: "weather" })).toEqual({ text: "weather", keep: "start" })
    expect(toolTarget({ todos: [] })).toBeUndefined()
    expect(toolTarget("not an object")).toBeUndefined()
  })
})
