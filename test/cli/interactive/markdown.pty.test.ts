import { afterAll, describe, expect, it } from "@effect/vitest"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { keys, openOnPty } from "../../support/pty-screen.js"
import { makeTemp } from "../../support/temp-dirs.js"

const temps = makeTemp()
afterAll(temps.cleanup)

const PARAGRAPH =
  "The quick brown fox jumps over the lazy dog while seventeen careful engineers watch the build finish and then write down every single thing that happened."

const answer = `# Findings\n\nThis is **bold** and \`code\`. See [the docs](https://docs.example/x).\n\n- first point\n- second point\n\n${PARAGRAPH}`

const workspace = () => {
  const cwd = temps.dir("tui-md-")
  writeFileSync(join(cwd, "script.json"), JSON.stringify({ responses: [answer] }))
  return cwd
}

/** The screen's lines that hold the paragraph's words, in order. */
const paragraphLines = (text: string) => {
  const lines = text.split("\n").map((line) => line.trimEnd())
  const start = lines.findIndex((line) => line.startsWith("The quick brown"))
  const end = lines.findIndex((line, i) => i >= start && line.endsWith("happened."))
  return lines.slice(start, end + 1)
}

describe("the interactive session shows the answer as rendered Markdown, wrapped to the terminal", () => {
  for (const cols of [80, 120]) {
    it(`at ${cols} columns`, { timeout: 60_000 }, async () => {
      const cwd = workspace()
      const session = openOnPty(["--script", "script.json"], { cwd, home: temps.dir("tui-home-"), cols, env: { TERM_PROGRAM: "kitty" } })
      try {
        await session.waitFor("custom-agent")
        session.type("what did you find?")
        session.type(keys.enter)
        const screen = await session.waitFor("happened.")
        expect(screen).toContain("› what did you find?")
        // Rendered, not the source: no `#`, no `**` (without colour a code span keeps its backticks); list items with their bullets.
        expect(screen).toMatch(/^Findings\s*$/m)
        // A link shows where it goes, on a terminal that takes hyperlinks too: no hidden target.
        expect(screen).toContain("This is bold and `code`. See the docs (https://docs.example/x).")
        expect(session.raw()).not.toContain("\x1b]8;;https")
        expect(screen).not.toContain("**")
        expect(screen).not.toContain("# Findings")
        expect(screen).toMatch(/^- first point\s*$/m)
        const lines = paragraphLines(screen)
        expect(lines.join(" ")).toBe(PARAGRAPH)
        for (const line of lines) expect(line.length).toBeLessThanOrEqual(cols)
        // Wrapped at the width, not before: the next word would not have fitted.
        for (const [i, line] of lines.slice(0, -1).entries()) {
          const next = (lines[i + 1] ?? "").split(" ")[0] ?? ""
          expect(line.length + 1 + next.length).toBeGreaterThan(cols)
        }
        // The status line: the model, the mode, what the session spent.
        expect(screen).toMatch(/scripted · mode default · session \d+ tokens/)
      } finally {
        session.kill()
      }
    })
  }

  it("re-wraps the conversation when the terminal is resized", { timeout: 60_000 }, async () => {
    const cwd = workspace()
    const session = openOnPty(["--script", "script.json"], { cwd, home: temps.dir("tui-home-"), cols: 120 })
    try {
      await session.waitFor("custom-agent")
      session.type("what did you find?")
      session.type(keys.enter)
      const wide = paragraphLines(await session.waitFor("happened."))
      expect(wide.length).toBe(2)
      session.resize(60)
      const narrow = await session.waitFor((text) => {
        const lines = paragraphLines(text)
        return lines.length > 2 && lines.every((line) => line.length <= 60)
      })
      expect(paragraphLines(narrow).join(" ")).toBe(PARAGRAPH)
      session.resize(120)
      await session.waitFor((text) => paragraphLines(text).length === 2)
    } finally {
      session.kill()
    }
  })
})
