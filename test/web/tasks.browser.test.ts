import { describe, expect, it } from "@effect/vitest"
import { join } from "node:path"
import { artifacts, assertWebBuilt, browserTestKit, openNewSession } from "./browser.js"

/**
 * The web page on a long task, in a real browser against the real, built server: the task list
 * pinned at the top as it changes, and a compaction's note with its summary by sections and the
 * events it replaced, expandable.
 */
const { tempDir, startScriptedServer, openPage } = browserTestKit()

const todos = (done: number) =>
  ["Read the spec", "Write the parser", "Run the tests"].map((content, i) => ({ content, status: i < done ? "completed" : i === done ? "in_progress" : "pending" }))

const summary = "## Goal\nParse the spec.\n\n## Decisions and constraints\nNo new dependencies.\n\n## Progress\nRead the spec.\n\n## Next step\nWrite the parser.\n\n## Open questions\nnone"

const script = {
  contextWindow: 6_000,
  maxOutputTokens: 500,
  summaries: [summary, summary],
  responses: [
    { chunks: [{ toolCall: { id: "todo_1", name: "todo_write", input: { todos: todos(0) } } }] },
    "Spec read.",
    { chunks: [{ toolCall: { id: "todo_2", name: "todo_write", input: { todos: todos(1) } } }] },
    "Parser written."
  ]
}

const long = (label: string) => `${label}: ${"the specification says many things at length ".repeat(70)}`

describe("the web page on a long task", () => {
  it("pins the task list as it changes and shows what a compaction replaced", { timeout: 150_000 }, async () => {
    assertWebBuilt()
    const workspace = tempDir("web-tasks-workspace-")
    const server = await startScriptedServer(script)
    const { page, pageErrors } = await openPage()
    await openNewSession(page, server, workspace)

    await page.locator("textarea[name=prompt]").fill(long("First"))
    await page.getByRole("button", { name: "Send" }).click()
    await page.locator(".block.turn-end.final").first().waitFor()
    const list = page.locator(".task-list")
    await list.locator("summary", { hasText: "Tasks 0/3 done" }).waitFor()
    expect(await list.locator("li").allTextContents()).toEqual(["◐ Read the spec", "○ Write the parser", "○ Run the tests"])

    await page.locator("textarea[name=prompt]").fill(long("Second"))
    await page.getByRole("button", { name: "Send" }).click()
    await page.locator(".block.turn-end.final").nth(1).waitFor()
    await list.locator("summary", { hasText: "Tasks 1/3 done" }).waitFor()
    expect(await list.locator("li.task.completed").allTextContents()).toEqual(["● Read the spec"])
    expect(await list.locator("li.task.in-progress").allTextContents()).toEqual(["◐ Write the parser"])

    const note = page.locator(".block.note.compaction")
    await note.waitFor()
    expect(await note.locator(".text").textContent()).toMatch(/Compacted 1 earlier turn\(s\) into a summary: events #1–#\d+, \d+ → \d+ tokens/)
    await note.locator(".compaction-summary summary").click()
    expect(await note.locator(".compaction-summary dt").allTextContents()).toEqual(["Goal", "Decisions and constraints", "Progress", "Next step", "Open questions"])
    expect(await note.locator(".compaction-summary dd").first().textContent()).toBe("Parse the spec.")
    await note.locator(".compaction-replaced summary").click()
    const replaced = await note.locator(".compaction-replaced li").allTextContents()
    expect(replaced[0]).toMatch(/^#\d+ you: First: the specification says/)
    expect(replaced.some((line) => /^#\d+ todo_write /.test(line))).toBe(true)
    expect(replaced.some((line) => /^#\d+ assistant: Spec read\./.test(line))).toBe(true)
    // The task list stays pinned while the timeline scrolls.
    await page.locator(".timeline").evaluate((element) => element.scrollTo(0, element.scrollHeight))
    expect(await list.isVisible()).toBe(true)
    await page.screenshot({ path: join(artifacts, "web-tasks.png") })
    expect(pageErrors).toEqual([])
  })
})
