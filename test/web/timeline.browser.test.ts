import { describe, expect, it } from "@effect/vitest"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { Page } from "playwright-core"
import { artifacts, assertWebBuilt, browserTestKit, openNewSession } from "./browser.js"

/**
 * The web timeline in a real browser against the real, built server: the scripted model, a
 * real workspace on disk. Every wait is for a condition, never for a time.
 */
const { tempDir, startScriptedServer, openPage } = browserTestKit()

const streamed = ["Reading ", "your notes: ", "the status ", "line is ", "out of date, ", "so I will ", "update it."]
const firstAnswer = streamed.join("")
const finalAnswer = "The notes now say the status is final."

const script = {
  responses: [
    {
      // Slow enough that the page can be reloaded while the answer streams in.
      delayMs: 250,
      chunks: [
        ...streamed.map((text) => ({ text })),
        { toolCall: { id: "call_edit_notes", name: "edit_file", input: { path: "notes.txt", old_string: "status: draft", new_string: "status: final" } } }
      ]
    },
    finalAnswer
  ]
}

/** The afterSequence of every Subscribe the page sends, in order. */
const watchSubscribes = (page: Page) => {
  const seen: Array<number> = []
  page.on("request", (request) => {
    if (!request.url().endsWith("/rpc")) return
    for (const line of (request.postData() ?? "").split("\n")) {
      if (line.trim() === "") continue
      const message: unknown = JSON.parse(line)
      if (typeof message !== "object" || message === null || !("tag" in message) || message.tag !== "Subscribe") continue
      const payload = "payload" in message ? message.payload : undefined
      const after = typeof payload === "object" && payload !== null && "afterSequence" in payload ? payload.afterSequence : undefined
      seen.push(typeof after === "number" ? after : 0)
    }
  })
  return seen
}

const answers = (page: Page) => page.locator(".block.answer .content").allTextContents()

describe("the web timeline in a real browser", () => {
  it("streams a turn, resumes it after a reload, answers a permission and shows the diff", { timeout: 120_000 }, async () => {
    assertWebBuilt()
    const workspace = tempDir("web-workspace-")
    const notes = join(workspace, "notes.txt")
    writeFileSync(notes, "# notes\nstatus: draft\nowner: sam\n")
    const server = await startScriptedServer(script)
    const { page, pageErrors } = await openPage()
    const subscribes = watchSubscribes(page)

    await openNewSession(page, server, workspace)

    await page.locator("textarea[name=prompt]").fill("Please update the status in my notes")
    await page.getByRole("button", { name: "Send" }).click()
    await page.locator(".block.answer", { hasText: streamed[0] ?? "" }).waitFor()
    await page.locator(".running").waitFor()

    // Mid-turn: the answer is streaming, or at the latest the turn waits for permission.
    const beforeReload = subscribes.length
    await page.reload()
    await page.locator(".permission-card").waitFor()
    expect(await answers(page)).toEqual([firstAnswer])
    expect(await page.locator(".block.user").allTextContents()).toEqual(["youPlease update the status in my notes"])
    // The reloaded page resumed from where it was, not from the start.
    expect(subscribes.slice(beforeReload)[0]).toBeGreaterThan(0)
    expect(await page.locator(".permission-card").textContent()).toContain("edit notes.txt")
    mkdirSync(artifacts, { recursive: true })
    await page.screenshot({ path: join(artifacts, "web-timeline-permission.png"), fullPage: true })

    await page.getByRole("button", { name: "Allow once" }).click()
    await page.locator(".block.tool .diff .add", { hasText: "+status: final" }).waitFor()
    await page.locator(".block.tool .diff .del", { hasText: "-status: draft" }).waitFor()
    await page.locator(".block.tool .permission", { hasText: "allowed once · by user" }).waitFor()
    await page.locator(".block.turn-end.final").waitFor()
    await page.locator(".idle").waitFor()
    expect(await answers(page)).toEqual([firstAnswer, finalAnswer])
    expect(await page.locator(".permission-card").count()).toBe(0)
    expect(readFileSync(notes, "utf8")).toBe("# notes\nstatus: final\nowner: sam\n")

    await page.screenshot({ path: join(artifacts, "web-timeline.png"), fullPage: true })
    expect(pageErrors).toEqual([])
  })
})
