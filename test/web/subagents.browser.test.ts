import { describe, expect, it } from "@effect/vitest"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { artifacts, assertWebBuilt, browserTestKit, openNewSession } from "./browser.js"

/**
 * The web page on a delegated task, in a real browser against the real, built server: the
 * subagent's start and end as notes, its prompt (folded) and its answer (as Markdown) once, on
 * the `task` call, and its own session as a nested timeline on demand.
 */
const { tempDir, startScriptedServer, openPage } = browserTestKit()

const script = {
  responses: [{ chunks: [{ toolCall: { id: "call_task", name: "task", input: { agent: "reviewer", prompt: "Review notes.txt" } } }] }, "The reviewer is happy."],
  agents: {
    reviewer: { responses: [{ chunks: [{ toolCall: { id: "call_read", name: "read_file", input: { path: "notes.txt" } } }] }, "**notes.txt** looks right."] }
  }
}

describe("the web page on a subagent", () => {
  it("shows the subagent's start and answer, and its session as a nested timeline when opened", { timeout: 150_000 }, async () => {
    assertWebBuilt()
    const workspace = tempDir("web-subagents-workspace-")
    mkdirSync(join(workspace, ".agents", "agents"), { recursive: true })
    writeFileSync(join(workspace, ".agents", "agents", "reviewer.md"), "---\nname: reviewer\ndescription: Reviews files\ntools: read_file\n---\nYou review.\n")
    writeFileSync(join(workspace, "notes.txt"), "alpha\n")
    const server = await startScriptedServer(script)
    const { page, pageErrors } = await openPage()
    await openNewSession(page, server, workspace)

    await page.locator("textarea[name=prompt]").fill("Have notes.txt reviewed")
    await page.getByRole("button", { name: "Send" }).click()
    await page.locator(".block.turn-end.final").first().waitFor()
    const notes = page.locator(".block.note.subagent")
    expect(await notes.locator(".text").first().textContent()).toMatch(/^Subagent reviewer started \(session ses_/)
    expect(await notes.locator(".text").nth(1).textContent()).toMatch(/^Subagent reviewer answered/)
    // The prompt and the answer once each, on the call: the notes do not repeat them.
    const task = page.locator(".block.tool[data-tool-call-id=call_task]")
    expect(await task.locator(".tool-subject .agent").textContent()).toBe("reviewer")
    expect(await task.locator(".subagent-prompt pre").textContent()).toBe("Review notes.txt")
    expect(await task.locator(".subagent-answer strong").textContent()).toBe("notes.txt")
    expect(await notes.locator("details:not(.subagent)").count()).toBe(0)
    expect((await page.locator(".timeline").innerText()).split("looks right.").length - 1).toBe(1)
    await page.screenshot({ path: join(artifacts, "web-subagent.png") })

    await notes.first().locator("details.subagent summary").click()
    const nested = notes.first().locator(".subagent-timeline")
    await nested.locator(".block.turn-end.final").waitFor()
    expect(await nested.locator(".block.user .content").textContent()).toBe("Review notes.txt")
    expect(await nested.locator(".block.answer").last().textContent()).toContain("notes.txt looks right.")
    expect(await nested.getByText("read_file").count()).toBeGreaterThan(0)
    // The session list shows the child's session right under its parent's, indented.
    const child = page.locator("li.session-row.subagent")
    await child.waitFor()
    expect(await child.locator(".title").textContent()).toContain("reviewer: Review notes.txt")
    expect(await page.locator("li.session-row").evaluateAll((rows) => rows.map((row) => row.classList.contains("subagent")))).toEqual([false, true])
    expect(pageErrors).toEqual([])
  })
})
