import { describe, expect, it } from "@effect/vitest"
import { createServer } from "node:net"
import { join } from "node:path"
import type { Page } from "playwright-core"
import { stop } from "../support/cli.js"
import { artifacts, assertWebBuilt, browserTestKit, openNewSession } from "./browser.js"

/**
 * Failures said once, in words, with a way on, in a real browser against the real, built
 * server: a failed turn is one block with Retry; a server that goes away is one banner (no
 * internal tag) with "Retry now"; a restarted server keeps its token, so the open tab goes on;
 * and what was typed survives the restart, a reload and a refused token.
 */
const { tempDir, serverDirs, startScriptedServer, openPage } = browserTestKit()

const script = {
  responses: [{ failAfter: 0, error: { code: "overloaded", message: "529 overloaded_error: Overloaded" } }, "Shipped on the second try."]
}

/** A port free now, so a restarted server can listen where the page expects it. */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer()
    probe.on("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      probe.close(() => resolve(port))
    })
  })

/** How many times the page's visible text says `phrase`. */
const mentions = async (page: Page, phrase: string) => (await page.locator("body").innerText()).split(phrase).length - 1

const draft = (page: Page) => page.locator("textarea[name=prompt]")

describe("when something fails", () => {
  it("says it once, in words, with Retry; a restarted server keeps the tab and its draft; a refused token keeps the draft", { timeout: 180_000 }, async () => {
    assertWebBuilt()
    const workspace = tempDir("web-restart-workspace-")
    const dirs = serverDirs()
    const port = await freePort()
    const first = await startScriptedServer(script, dirs, port)
    const { page, pageErrors } = await openPage()
    await page.setViewportSize({ width: 1280, height: 800 })
    await openNewSession(page, first, workspace)
    const sessionId = new URL(page.url()).searchParams.get("session") ?? ""

    // A failed turn: one block, in words (the provider's message beside them), with Retry.
    await draft(page).fill("Ship it")
    await page.getByRole("button", { name: "Send" }).click()
    const failed = page.locator(".block.turn-end.error")
    await failed.waitFor()
    expect(await page.locator(".block.failure").count()).toBe(0)
    expect(await mentions(page, "Model failed")).toBe(0)
    expect(await mentions(page, "529 overloaded_error: Overloaded")).toBe(1)
    expect(await failed.locator(".headline").textContent()).toBe("Turn failed: The model provider is overloaded, even after waiting and trying again.")
    await page.locator(".session-header .status .failed").waitFor()
    await page.screenshot({ path: join(artifacts, "web-turn-failed.png") })
    await failed.getByRole("button", { name: "Retry" }).click()
    await page.locator(".block.answer", { hasText: "Shipped on the second try." }).waitFor()
    expect(await page.locator(".block.user", { hasText: "Ship it" }).count()).toBe(2)
    // Retry belongs to the last turn only, and only while it is the failed one.
    expect(await page.getByRole("button", { name: "Retry" }).count()).toBe(0)

    // Half a message, then the server goes away: one banner, in words, and the text stays.
    await draft(page).fill("half a thought")
    first.child.kill("SIGKILL")
    const banner = page.locator(".server-banner")
    await banner.waitFor()
    expect(await mentions(page, "The server is not answering")).toBe(1)
    expect(await mentions(page, "Transport")).toBe(0)
    expect(await page.locator(".connection").count()).toBe(0)
    expect(await draft(page).inputValue()).toBe("half a thought")
    await page.setViewportSize({ width: 390, height: 844 })
    await page.locator(".sessions").waitFor({ state: "hidden" })
    await banner.getByRole("button", { name: "Retry now" }).waitFor({ state: "visible" })
    await page.screenshot({ path: join(artifacts, "web-server-gone-narrow.png") })
    await page.setViewportSize({ width: 1280, height: 800 })
    await page.screenshot({ path: join(artifacts, "web-server-gone.png") })

    // Restarted on its data directory: the same token, so "Retry now" brings the tab back as it was.
    const second = await startScriptedServer(script, dirs, port)
    expect(second.token).toBe(first.token)
    await banner.getByRole("button", { name: "Retry now" }).click()
    await banner.waitFor({ state: "detached" })
    await page.locator(".block.answer", { hasText: "Shipped on the second try." }).waitFor()
    expect(await page.locator(".no-token").count()).toBe(0)
    expect(await draft(page).inputValue()).toBe("half a thought")
    // A reload keeps both: the token of this tab and the draft of this session.
    await page.reload()
    await page.locator(".block.answer", { hasText: "Shipped on the second try." }).waitFor()
    expect(await draft(page).inputValue()).toBe("half a thought")

    // A new token refuses this tab: the draft waits for the new link.
    await stop(second.child)
    const rotated = await startScriptedServer(script, dirs, port, ["--rotate-token"])
    expect(rotated.token).not.toBe(first.token)
    // The streams try again by themselves (a pause of at most 5 s) and are refused.
    await page.locator(".no-token", { hasText: "The server refused the token" }).waitFor()
    await page.goto(`${rotated.url}/?session=${sessionId}#token=${rotated.token}`)
    await page.locator(".block.answer", { hasText: "Shipped on the second try." }).waitFor()
    expect(await draft(page).inputValue()).toBe("half a thought")
    await page.getByRole("button", { name: "Send" }).click()
    await page.locator(".block.user", { hasText: "half a thought" }).waitFor()
    await expect.poll(() => draft(page).inputValue()).toBe("")
    await page.reload()
    await page.locator(".block.user", { hasText: "half a thought" }).waitFor()
    expect(await draft(page).inputValue()).toBe("")
    expect(pageErrors).toEqual([])
  })
})
