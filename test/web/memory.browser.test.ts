import { describe, expect, it } from "@effect/vitest"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import type { Page } from "playwright-core"
import { artifacts, assertWebBuilt, browserTestKit, openNewSession } from "./browser.js"

/**
 * Memory review and compaction in a real browser against the real, built server: the
 * scripted model proposes two memories with the `remember` tool; one is rejected in the
 * timeline, the other approved (then deleted) in the memory view; the session is compacted.
 */
const { tempDir, startScriptedServer, openPage } = browserTestKit()

const release = "Releases are cut on Fridays."
const tabs = "The user prefers tabs."
const summary = "Earlier: the user set the release day and asked about tabs."

const script = {
  responses: [
    {
      chunks: [
        { text: "I will propose both." },
        { toolCall: { id: "call_remember_release", name: "remember", input: { text: release, scope: "project" } } },
        { toolCall: { id: "call_remember_tabs", name: "remember", input: { text: tabs, scope: "user" } } }
      ]
    },
    "Both wait for your review."
  ],
  summaries: [summary]
}

/** The timeline note of a proposal, found by what it proposed. */
const proposal = (page: Page, text: string) => page.locator(".block.note.memory[data-candidate-id]", { hasText: text })
const badge = (page: Page) => page.locator(".nav.memory .count")

describe("memory review and compaction in the web page", () => {
  it("reviews the memories a session proposed (a late decision is refused quietly), links back to their evidence and compacts on request", { timeout: 120_000 }, async () => {
    assertWebBuilt()
    const workspace = tempDir("web-memory-workspace-")
    const server = await startScriptedServer(script)
    const { page, pageErrors, newPage } = await openPage()
    mkdirSync(artifacts, { recursive: true })

    await openNewSession(page, server, workspace)
    const sessionUrl = page.url()
    await page.locator("textarea[name=prompt]").fill("Remember our release day, and that I like tabs")
    await page.getByRole("button", { name: "Send" }).click()
    await page.locator(".block.turn-end.final").waitFor()
    await page.locator(".idle").waitFor()

    // Both proposals can be reviewed right in the timeline; the sidebar counts them.
    await proposal(page, release).getByRole("button", { name: "Approve" }).waitFor()
    await proposal(page, tabs).getByRole("button", { name: "Reject" }).waitFor()
    await badge(page).filter({ hasText: /^2$/ }).waitFor()
    await page.screenshot({ path: join(artifacts, "web-memory-proposed.png"), fullPage: true })

    await proposal(page, tabs).getByRole("button", { name: "Reject" }).click()
    await page.locator(".block.note", { hasText: `Memory candidate rejected by rpc:web: ${tabs}` }).waitFor()
    await proposal(page, tabs).getByRole("button").waitFor({ state: "detached" })
    await badge(page).filter({ hasText: /^1$/ }).waitFor()
    expect(await proposal(page, release).getByRole("button").allTextContents()).toEqual(["Approve", "Reject"])

    // The memory view: the pending candidate with its scope and the session it came from.
    await page.locator(".nav.memory").click()
    await page.waitForURL(/\?view=memory/)
    const candidate = page.locator("li.memory-item.candidate")
    await candidate.filter({ hasText: release }).waitFor()
    expect(await candidate.count()).toBe(1)
    expect(await candidate.locator(".scope").textContent()).toBe(`project ${workspace}`)
    await page.locator("section[aria-label='approved memories']", { hasText: "No memories yet." }).waitFor()
    await page.screenshot({ path: join(artifacts, "web-memory-pending.png"), fullPage: true })

    // Another tab approves it while this one's list is held stale (its refreshes fail): this
    // tab's late rejection is refused, and it says so quietly.
    const other = await newPage()
    await other.goto(`${server.url}/?view=memory#token=${server.token}`)
    await page.route("**/rpc", (route) => (route.request().postData() ?? "").includes('"ListMemoryCandidates"') ? route.abort() : route.continue())
    await other.locator("li.memory-item.candidate", { hasText: release }).getByRole("button", { name: "Approve" }).click()
    await other.locator("li.memory-item.approved", { hasText: release }).waitFor()
    await other.screenshot({ path: join(artifacts, "web-memory-approved.png"), fullPage: true })
    await candidate.getByRole("button", { name: "Reject" }).click()
    await page.locator(".notice", { hasText: "Already reviewed elsewhere." }).waitFor()
    expect(await page.locator(".notice").getAttribute("class")).toContain("muted")
    await page.screenshot({ path: join(artifacts, "web-memory-late.png"), fullPage: true })
    await page.unroute("**/rpc")

    const approved = page.locator("li.memory-item.approved", { hasText: release })
    await approved.waitFor()
    await page.locator("section[aria-label='pending memory candidates']", { hasText: "Nothing waits for review." }).waitFor()
    await badge(page).waitFor({ state: "detached" })
    expect(await approved.textContent()).toContain("approved by rpc:web")

    // Its evidence link opens the session at the events that back it, with the approval on record.
    await approved.locator("a.evidence-link").click()
    await page.waitForURL(/\?session=.*&events=\d+-\d+/)
    await page.locator(".block.note", { hasText: `Memory approved by rpc:web: ${release}` }).waitFor()
    await page.locator(".slot.marked .block.user", { hasText: "Remember our release day" }).waitFor()
    expect(await page.locator(".slot.marked").count()).toBeGreaterThan(1)
    expect(await proposal(page, release).getByRole("button").count()).toBe(0)
    await page.screenshot({ path: join(artifacts, "web-memory-evidence.png"), fullPage: true })
    await page.locator(".marked-range").getByRole("link", { name: "Clear" }).click()
    await page.locator(".slot.marked").first().waitFor({ state: "detached" })
    expect(page.url()).not.toContain("events=")

    // Compaction on request: the summary, then nothing new.
    await page.getByRole("button", { name: "Compact" }).click()
    await page.locator(".compact-result", { hasText: summary }).waitFor()
    await page.locator(".block.note.compaction", { hasText: "Compacted 1 earlier turn(s)" }).waitFor()
    await page.screenshot({ path: join(artifacts, "web-memory-timeline.png"), fullPage: true })
    await page.getByRole("button", { name: "Compact" }).click()
    await page.locator(".compact-result", { hasText: "Nothing new to compact." }).waitFor()

    // Deleting the memory empties the list and goes on the session's record.
    await page.locator(".nav.memory").click()
    await approved.getByRole("button", { name: "Delete" }).click()
    await page.locator("section[aria-label='approved memories']", { hasText: "No memories yet." }).waitFor()
    await page.goto(sessionUrl)
    await page.locator(".block.note", { hasText: "Memory deleted by rpc:web" }).waitFor()

    expect(pageErrors).toEqual([])
  })
})
