import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { join } from "node:path"
import type { Page } from "playwright-core"
import { AgentClient, clientLayer } from "../../src/rpc/client.js"
import { artifacts, assertWebBuilt, browserTestKit, openNewSession } from "./browser.js"
import { recorder } from "./events.js"

/**
 * The page's layout in a real browser against the real, built server, at 1280 and 390 px: a
 * list that holds many sessions (rename and archive in a menu per row), relative times with the
 * full time in a tooltip, a turn's end showing when it ended, code blocks with a Copy button, a
 * task list that folds once all is done, a timeline with most of the height, and an empty state
 * that says where the sessions are on each screen.
 */
const { tempDir, startScriptedServer, openPage } = browserTestKit()

const script = {
  responses: [
    {
      chunks: [
        {
          toolCall: {
            id: "call_tasks",
            name: "todo_write",
            input: { todos: [{ content: "Read the notes", status: "completed" }, { content: "Fix the status", status: "completed" }] }
          }
        }
      ]
    },
    "Run this:\n\n```sh\nnpm test -- --run notes\n```\n\nThat is all."
  ]
}

type Server = { readonly url: string; readonly token: string }

const call = <A, E>(server: Server, use: (client: AgentClient["Type"]) => Effect.Effect<A, E>) =>
  Effect.runPromise(Effect.flatMap(AgentClient, use).pipe(Effect.scoped, Effect.provide(clientLayer(server))))

/** A finished turn from long ago, its events one second apart: it started at 00:00:02 and ended at 00:00:06. */
const oldLog = (cwd: string) => {
  const e = recorder("ses_old_work")
  return [
    e("session.created", { cwd, client: "cli", title: "Old work" }, undefined),
    e("turn.started", { promptPreview: "hi" }),
    e("user.message", { content: "hi", mode: "queue" }),
    e("model.delta", { text: "Hello." }),
    e("model.completed", { stopReason: "final", usage: { inputTokens: 3, outputTokens: 2 } }),
    e("turn.completed", { stopReason: "final" })
  ]
}

/** The timeline's share of the window's height. */
const timelineShare = (page: Page) =>
  page.evaluate(() => {
    const timeline = document.querySelector(".timeline")
    return timeline === null ? 0 : timeline.getBoundingClientRect().height / window.innerHeight
  })

/** Session rows wholly inside the sidebar's visible height. */
const rowsInSight = (page: Page) =>
  page.evaluate(() => {
    const list = document.querySelector(".sessions")
    if (list === null) return 0
    const bottom = list.getBoundingClientRect().bottom
    return Array.from(list.querySelectorAll("li.session-row")).filter((row) => row.getBoundingClientRect().bottom <= bottom).length
  })

/** Buttons with this text that a person can see. */
const visibleButtons = (page: Page, text: string) =>
  page.evaluate(
    (wanted) => Array.from(document.querySelectorAll("button")).filter((button) => button.textContent === wanted && button.checkVisibility()).length,
    text
  )

describe("the page's layout", () => {
  it("fits many sessions, tells times relatively and turn ends by their end, copies code, folds done tasks and gives the timeline the height, at 1280 and 390 px", { timeout: 180_000 }, async () => {
    assertWebBuilt()
    const workspace = tempDir("web-layout-workspace-")
    const server = await startScriptedServer(script)
    const { page, pageErrors } = await openPage()
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url })
    await page.setViewportSize({ width: 1280, height: 800 })
    await call(server, (client) => client.ImportSession({ events: oldLog(workspace) }))
    for (let i = 1; i <= 20; i++) {
      await call(server, (client) => client.CreateSession({ cwd: join(workspace, `project-${i}`), client: "cli", title: `Project ${i} with a title long enough to be cut` }))
    }

    // Wide: the list on the left holds many more than six sessions, without a Rename and an Archive button each.
    await page.goto(`${server.url}/#token=${server.token}`)
    await page.locator(".pane.empty", { hasText: "Pick a session on the left" }).waitFor()
    await expect.poll(() => page.locator("li.session-row").count()).toBe(21)
    expect(await rowsInSight(page)).toBeGreaterThanOrEqual(12)
    expect(await visibleButtons(page, "Rename")).toBe(0)
    expect(await visibleButtons(page, "Archive")).toBe(0)
    await page.locator('summary[aria-label="Actions for Old work"]').click()
    await page.getByRole("menuitem", { name: "Rename Old work" }).waitFor()
    await page.getByRole("menuitem", { name: "Archive Old work" }).waitFor()
    await page.screenshot({ path: join(artifacts, "web-layout-list.png") })
    await page.locator('summary[aria-label="Actions for Old work"]').click()

    // Times: relative, the full time in the tooltip; a turn's end tells when it ended.
    const updated = page.locator("li.session-row", { hasText: "Project 20" }).locator(".updated time")
    expect(await updated.textContent()).toMatch(/^(just now|\d+ min ago)$/)
    const at = (await updated.getAttribute("datetime")) ?? ""
    expect(await updated.getAttribute("title")).toBe(`${new Date(at).toLocaleString("en-US")} (last activity)`)
    await page.locator("li.session-row", { hasText: "Old work" }).locator("a.session").click()
    const ended = page.locator(".block.turn-end.final time")
    await ended.waitFor()
    expect(await ended.getAttribute("datetime")).toBe("2025-01-01T00:00:06.000Z")
    // The first of January in UTC, or the last of December west of it.
    expect(await ended.textContent()).toMatch(/^(1 Jan 2025|31 Dec 2024)$/)
    expect(await ended.getAttribute("title")).toContain(`started ${new Date("2025-01-01T00:00:02.000Z").toLocaleString("en-US")}`)

    // A turn that finishes its task list and answers with code.
    await openNewSession(page, server, workspace)
    await page.locator("textarea[name=prompt]").fill("Fix my notes")
    await page.getByRole("button", { name: "Send" }).click()
    await page.locator(".block.turn-end.final").waitFor()
    const tasks = page.locator("details.task-list")
    await tasks.locator("summary", { hasText: "Tasks 2/2 done" }).waitFor()
    expect(await tasks.evaluate((details) => details instanceof HTMLDetailsElement && details.open)).toBe(false)
    const code = page.locator(".block.answer pre").first()
    await code.locator("button.copy").click()
    await code.locator("button.copy", { hasText: "Copied" }).waitFor()
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe("npm test -- --run notes")
    await page.screenshot({ path: join(artifacts, "web-layout-wide.png") })
    expect(await timelineShare(page)).toBeGreaterThanOrEqual(0.7)

    // Narrow: the timeline still has most of the height, and the empty page says where the sessions are.
    await page.setViewportSize({ width: 390, height: 844 })
    await page.locator(".sessions").waitFor({ state: "hidden" })
    expect(await timelineShare(page)).toBeGreaterThanOrEqual(0.7)
    await page.screenshot({ path: join(artifacts, "web-layout-narrow.png") })
    await page.goto(`${server.url}/`)
    const empty = page.locator(".pane.empty")
    await empty.getByRole("button", { name: "☰ Sessions" }).waitFor()
    expect(await empty.innerText()).not.toContain("on the left")
    await page.screenshot({ path: join(artifacts, "web-layout-narrow-empty.png") })
    await empty.getByRole("button", { name: "☰ Sessions" }).click()
    await page.locator(".sessions").waitFor({ state: "visible" })
    expect(pageErrors).toEqual([])
  })
})
