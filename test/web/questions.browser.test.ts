import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { join } from "node:path"
import type { Page } from "playwright-core"
import { AgentClient, clientLayer } from "../../src/rpc/client.js"
import { artifacts, assertWebBuilt, browserTestKit, openNewSession } from "./browser.js"

/**
 * A session that waits on you, in a real browser against the real, built server: the header
 * says "waiting for you", the list marks it (and, later, marks a failed one), a background tab
 * gets a notification once the person allowed them (asked on their click, never on load), and
 * the mode and the model are picked beside the composer. At 1280 and 390 px.
 */
const { tempDir, startScriptedServer, openPage } = browserTestKit()

const script = {
  responses: [
    { chunks: [{ toolCall: { id: "call_release", name: "shell", input: { command: "make release" } } }] },
    { failAfter: 0, error: { code: "overloaded", message: "529 overloaded_error: Overloaded" } },
    // The script plays whichever model the session has: here the one picked in the page.
    "Answered by the picked model."
  ]
}

type Server = { readonly url: string; readonly token: string }

const call = <A, E>(server: Server, use: (client: AgentClient["Type"]) => Effect.Effect<A, E>) =>
  Effect.runPromise(Effect.flatMap(AgentClient, use).pipe(Effect.scoped, Effect.provide(clientLayer(server))))

declare global {
  interface Window {
    /** What the stub below recorded: each notification shown, and each time permission was asked. */
    __notices: Array<{ readonly title: string; readonly body: string }>
    __permissionAsks: number
    /** Whether the tab plays a background tab. */
    __hidden: boolean
  }
}

/**
 * A Notification that records instead of showing (headless Chromium shows none), starting at
 * "default" and granted when asked; and a tab whose visibility the test sets.
 */
const stubNotificationsAndVisibility = (page: Page) =>
  page.addInitScript(() => {
    window.__notices = []
    window.__permissionAsks = 0
    window.__hidden = false
    let permission: NotificationPermission = "default"
    class RecordingNotification {
      static get permission() {
        return permission
      }
      static requestPermission() {
        window.__permissionAsks += 1
        permission = "granted"
        return Promise.resolve(permission)
      }
      onclick: (() => void) | null = null
      constructor(title: string, options?: NotificationOptions) {
        window.__notices.push({ title, body: options?.body ?? "" })
      }
      close() {}
    }
    Object.defineProperty(window, "Notification", { value: RecordingNotification, configurable: true })
    Object.defineProperty(document, "visibilityState", { get: () => (window.__hidden ? "hidden" : "visible"), configurable: true })
    Object.defineProperty(document, "hidden", { get: () => window.__hidden, configurable: true })
  })

const row = (page: Page, sessionId: string) => page.locator(`.sessions li.session-row[data-session-id="${sessionId}"]`)

describe("a session that waits on you", () => {
  it("says so in the header and the list, notifies a background tab once allowed, marks a failed turn, and picks mode and model", { timeout: 180_000 }, async () => {
    assertWebBuilt()
    const workspace = tempDir("web-questions-workspace-")
    const server = await startScriptedServer(script)
    const { page, pageErrors } = await openPage()
    await page.context().grantPermissions(["notifications"], { origin: server.url })
    await stubNotificationsAndVisibility(page)
    await page.setViewportSize({ width: 1280, height: 800 })
    await openNewSession(page, server, workspace)
    const sessionId = new URL(page.url()).searchParams.get("session") ?? ""
    await call(server, (client) => client.RenameSession({ sessionId, title: "Release day", by: "cli" }))

    // Nobody was asked on load; the page offers it, and asks on the click.
    expect(await page.evaluate(() => window.__permissionAsks)).toBe(0)
    await page.getByRole("button", { name: "Notify me when a question waits" }).click()
    await page.locator(".sessions p.notify", { hasText: "Questions notify you" }).waitFor()
    expect(await page.evaluate(() => window.__permissionAsks)).toBe(1)

    // The tab goes to the background; another client's prompt asks a question.
    await page.evaluate(() => (window.__hidden = true))
    await call(server, (client) => client.Prompt({ sessionId, content: "Cut the release", client: "cli" }))
    await page.locator(".permission-card").waitFor()
    await page.locator(".session-header .status .waiting", { hasText: "waiting for you" }).waitFor()
    await row(page, sessionId).locator(".status-badge.is-waiting", { hasText: "waiting for you" }).waitFor()
    await expect.poll(() => page.evaluate(() => window.__notices)).toEqual([{ title: "A question waits for you", body: "Release day" }])
    await page.screenshot({ path: join(artifacts, "web-waiting.png") })

    // Narrow: the header still says it.
    await page.setViewportSize({ width: 390, height: 844 })
    await page.locator(".sessions").waitFor({ state: "hidden" })
    await page.locator(".session-header .status .waiting", { hasText: "waiting for you" }).waitFor({ state: "visible" })
    await page.screenshot({ path: join(artifacts, "web-waiting-narrow.png") })
    await page.setViewportSize({ width: 1280, height: 800 })

    // Denied, the turn goes on and its next request fails: the header and the list say "failed", not idle.
    await page.evaluate(() => (window.__hidden = false))
    await page.locator(".permission-card").getByRole("button", { name: "Deny", exact: true }).click()
    await page.locator(".block.turn-end.error").waitFor()
    await page.locator(".session-header .status .failed", { hasText: "failed" }).waitFor()
    await row(page, sessionId).locator(".status-badge.is-failed", { hasText: "failed" }).waitFor()
    // Only the one notice: the answer and the failure notify nobody.
    expect(await page.evaluate(() => window.__notices.length)).toBe(1)

    // The mode: a switch that records the change at once.
    const mode = page.getByRole("combobox", { name: "Permission mode" })
    expect(await mode.inputValue()).toBe("default")
    await mode.selectOption("plan")
    await page.locator(".block.note.mode", { hasText: "mode: plan (set by rpc:web)" }).waitFor()
    expect(await mode.inputValue()).toBe("plan")
    const log = await call(server, (client) => client.GetSession({ sessionId }))
    expect(log.permissionMode).toBe("plan")

    // The model: a pick is the session's at once (recorded before any message), and the next turn asks it.
    const model = page.getByRole("combobox", { name: "Session model" })
    expect(await model.getAttribute("placeholder")).toBe("scripted")
    await model.fill("anthropic")
    await model.press("Enter")
    await page.locator(".block.note.model", { hasText: "model: anthropic (set by rpc:web)" }).waitFor()
    await page.locator(".session-header", { hasText: "anthropic" }).waitFor()
    expect((await call(server, (client) => client.GetSession({ sessionId }))).model).toBe("anthropic")
    expect(await model.inputValue()).toBe("")
    expect(await model.getAttribute("placeholder")).toBe("anthropic")
    await page.locator("textarea[name=prompt]").fill("Try with Claude")
    await page.getByRole("button", { name: "Send" }).click()
    await page.locator(".block.answer", { hasText: "Answered by the picked model." }).waitFor()

    await page.setViewportSize({ width: 390, height: 844 })
    await page.locator(".sessions").waitFor({ state: "hidden" })
    await mode.waitFor({ state: "visible" })
    await model.waitFor({ state: "visible" })
    await page.screenshot({ path: join(artifacts, "web-mode-model-narrow.png") })
    expect(pageErrors).toEqual([])
  })
})
