import { afterAll, describe, expect, it } from "@effect/vitest"
import { spawn } from "@lydell/node-pty"
import xterm from "@xterm/headless"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assertBuilt, cliPath, runCli } from "../support/cli.js"

/**
 * `custom-agent run` on a real pseudo-terminal, 80 columns wide, its screen read back with
 * xterm's headless emulator: what a person sees. The same turn piped prints what it printed
 * before the terminal view existed: the answer's Markdown as the model wrote it.
 */

const dirs: Array<string> = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

const folder = join("deeply", "nested", "folders", "that", "make", "the", "path", "longer", "than", "the", "terminal")
const file = join(folder, "notes-with-a-long-name.md")

const first = "## Plan\n\nI will **read** the notes in `notes.md` first.\n\n"
const second = "| file | lines |\n|---|---|\n| notes.md | 3 |\n\nAll **done**:\n\n- one\n- two"

const project = () => {
  const cwd = mkdtempSync(join(tmpdir(), "run-pty-"))
  dirs.push(cwd)
  mkdirSync(join(cwd, folder), { recursive: true })
  writeFileSync(join(cwd, file), "a\nb\nc\n")
  writeFileSync(
    join(cwd, "script.json"),
    JSON.stringify({
      responses: [
        {
          chunks: [{ text: first }, { toolCall: { name: "read_file", input: { path: file }, id: "call_1" } }],
          usage: { inputTokens: 1200, outputTokens: 40, cacheReadTokens: 1000 }
        },
        { chunks: [{ text: second }], usage: { inputTokens: 1300, outputTokens: 30, cacheReadTokens: 1100 } }
      ]
    })
  )
  return cwd
}

const args = (cwd: string) => ["run", "--script", "script.json", "--data-dir", join(cwd, "data"), "read the notes"]

/** The program run on a pty of `cols` columns until it exits; its screen's lines, as a terminal shows them. */
const onPty = (cwd: string, cols: number) =>
  new Promise<{ readonly code: number; readonly raw: string; readonly screen: ReadonlyArray<string> }>((resolve, reject) => {
    assertBuilt()
    const rows = 60
    const pty = spawn(process.execPath, [cliPath, ...args(cwd)], {
      cols,
      rows,
      cwd,
      env: { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? "", TERM: "xterm-256color" }
    })
    const terminal = new xterm.Terminal({ cols, rows, allowProposedApi: true })
    let raw = ""
    pty.onData((data) => {
      raw += data
    })
    pty.onExit(({ exitCode }) => {
      // Every byte parsed before the screen is read.
      terminal.write(raw, () => {
        const buffer = terminal.buffer.active
        const screen = Array.from({ length: buffer.length }, (_, y) => buffer.getLine(y)?.translateToString(true) ?? "")
        terminal.dispose()
        resolve({ code: exitCode, raw, screen })
      })
    })
    setTimeout(() => {
      pty.kill()
      reject(new Error(`run on a pty did not end:\n${raw}`))
    }, 25_000).unref()
  })

describe("run on a terminal", () => {
  it("renders the answer as Markdown, fits the tool line to 80 columns, and ends with the turn's summary", async () => {
    const cwd = project()
    const { code, raw, screen } = await onPty(cwd, 80)
    const shown = screen.join("\n")
    expect(code, shown).toBe(0)
    // Markdown rendered: no heading marks, no emphasis marks, a table drawn.
    expect(screen).toContain("Plan")
    expect(shown).toContain("I will read the notes in notes.md first.")
    expect(shown).not.toMatch(/##|\*\*|\|---/)
    expect(shown).toMatch(/┌─+┬─+┐\n│ file +│ lines │/)
    expect(shown).toContain("All done:")
    expect(shown).toContain("- one\n- two")
    // One line for the tool call, fitted: its file's name kept, the line as wide as the terminal at most.
    const toolLine = screen.find((line) => line.startsWith("  ✓ read_file "))
    expect(toolLine, shown).toMatch(/^ {2}✓ read_file ….*\/notes-with-a-long-name\.md · \d+ ms$/)
    expect(toolLine?.length).toBeLessThanOrEqual(80)
    expect(shown).not.toContain("⚙")
    // The summary, then the session.
    const lines = screen.filter((line) => line !== "")
    expect(lines.at(-2)).toMatch(/^── done · \d+(?: ms|\.\d s) · 2 steps · 2\.5k in \/ 70 out tokens · 2\.1k cached$/)
    expect(lines.at(-1)).toMatch(/^session ses_\w+$/)
    // Colour is on (the terminal has no NO_COLOR): the heading is styled.
    expect(raw).toContain("\x1b[36m\x1b[1mPlan")
    // No spinner frame is left on the screen.
    expect(shown).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/)
  })

  it("piped, prints the answer as the model wrote it and the tool lines as before", async () => {
    const cwd = project()
    const { code, stdout, stderr } = await runCli(args(cwd), { cwd })
    expect(code, stderr).toBe(0)
    expect(stdout).toBe(`${first}${second}\n`)
    expect(stderr).toContain(`⚙ read_file {"path":"${file}"}`)
    expect(stderr).toMatch(/ {2}✓ read_file \d+ ms /)
    expect(stderr).toMatch(/\nsession ses_\w+\n$/)
    expect(stderr).not.toContain("── done")
  })
})
