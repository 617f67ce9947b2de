import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import type { Page } from "playwright-core"
import { AgentClient, clientLayer } from "../../src/rpc/client.js"
import { artifacts, assertWebBuilt, browserTestKit, openNewSession } from "./browser.js"
import { recorder } from "./events.js"

/**
 * The session list in a real browser against the real, built server: it follows the server's
 * pushes (no polling), searches, renames and archives, and tells an interrupted session (a
 * log whose turn a dead process left open, imported here) from an idle one. A question whose
 * server died while it waited offers no answer once the page is back on the restarted server.
 */
const { tempDir, serverDirs, startScriptedServer, openPage } = browserTestKit()

const script = { responses: [{ chunks: [{ toolCall: { id: "call_make", name: "shell", input: { command: "make release" } } }] }] }

type Server = { readonly url: string; readonly token: string }

/** Another client of the same server, as the CLI or a second tab would be. */
const call = <A, E>(server: Server, use: (client: AgentClient["Type"]) => Effect.Effect<A, E>) =>
  Effect.runPromise(Effect.flatMap(AgentClient, use).pipe(Effect.scoped, Effect.provide(clientLayer(server))))

/** A session whose process died while it asked a permission question: its turn never completed (so it imports only unverified). */
const interruptedLog = (cwd: string) => {
  const e = recorder("ses_interrupted")
  return [
    e("session.created", { cwd, client: "cli", title: "Interrupted deploy" }, undefined),
    e("turn.started", { promptPreview: "deploy it" }),
    e("user.message", { content: "deploy it", mode: "queue" }),
    e("model.tool_call_requested", { toolCallId: "call_deploy", name: "shell", input: { command: "make deploy" } }),
    e("model.completed", { stopReason: "tool_calls", usage: { inputTokens: 10, outputTokens: 5 } }),
    e("permission.requested", { toolCallId: "call_deploy", tool: "shell", risk: "execute", summary: "shell: make deploy" })
  ]
}

/** The tag of every RPC the page sends. */
const watchCalls = (page: Page) => {
  const tags: Array<string> = []
  page.on("request", (request) => {
    if (!request.url().endsWith("/rpc")) return
    for (const line of (request.postData() ?? "").split("\n")) {
      const tag = /"tag":"([A-Za-z]+)"/.exec(line)?.[1]
      if (tag !== undefined) tags.push(tag)
    }
  })
  return tags
}

const row = (page: Page, title: string) => page.locator(".sessions li.session-row", { hasText: title })
const titles = (page: Page) => page.locator(".sessions li.session-row .title").allTextContents()

describe("the session list in the web page", () => {
  it("follows the server's pushes, searches, renames, archives, deletes and shows each session's status", { timeout: 120_000 }, async () => {
    assertWebBuilt()
    const workspace = tempDir("web-sessions-workspace-")
    const dirs = serverDirs()
    const server = await startScriptedServer(script, dirs)
    const { page, pageErrors } = await openPage()
    const calls = watchCalls(page)
    mkdirSync(artifacts, { recursive: true })

    await openNewSession(page, server, workspace)
    const first = new URL(page.url()).searchParams.get("session") ?? ""
    // Its turn waits on a question.
    await page.locator("textarea[name=prompt]").fill("Cut the release")
    await page.getByRole("button", { name: "Send" }).click()
    await page.locator(".permission-card").waitFor()
    // Its line says it waits for you, not just that it runs.
    await page.locator(`.sessions li.session-row[data-session-id="${first}"] .status-badge.is-waiting`).waitFor()

    // Sessions other clients make appear without a reload: an imported one whose turn was left open, a titled one.
    const imported = await call(server, (client) => client.ImportSession({ events: interruptedLog(workspace), unverified: true }))
    expect(imported.sessionId).toBe("ses_interrupted")
    await call(server, (client) => client.CreateSession({ cwd: join(workspace, "release"), client: "cli", title: "Release checklist" }))
    await row(page, "Release checklist").waitFor()
    await row(page, "Interrupted deploy").locator(".status-badge.is-interrupted").waitFor()
    expect(await row(page, "Release checklist").locator(".status-badge").textContent()).toBe("idle")
    await call(server, (client) => client.RenameSession({ sessionId: first, title: "Ship day", by: "cli" }))
    await row(page, "Ship day").waitFor()
    await page.locator(".session-header h2", { hasText: "Ship day" }).waitFor()
    await page.screenshot({ path: join(artifacts, "web-sessions.png"), fullPage: true })

    // Search over titles, directories and ids.
    const search = page.getByRole("searchbox", { name: "Search sessions" })
    await search.fill("RELEASE")
    await expect.poll(() => titles(page)).toEqual(["idleRelease checklist"])
    await search.fill(first.toUpperCase())
    await expect.poll(() => titles(page)).toEqual(["waiting for youShip day"])
    await search.fill("no such session")
    await page.locator(".sessions", { hasText: "No session matches." }).waitFor()
    await search.fill("")

    // Rename in place, from the row's menu.
    await page.locator('summary[aria-label="Actions for Release checklist"]').click()
    await page.getByRole("menuitem", { name: "Rename Release checklist" }).click()
    await page.getByRole("textbox", { name: "New title of Release checklist" }).fill("Release plan v2")
    await page.locator(".rename-form").getByRole("button", { name: "Save" }).click()
    await row(page, "Release plan v2").waitFor()

    // Archive: hidden until asked for, then brought back.
    await page.locator('summary[aria-label="Actions for Release plan v2"]').click()
    await page.getByRole("menuitem", { name: "Archive Release plan v2" }).click()
    await row(page, "Release plan v2").waitFor({ state: "detached" })
    await page.getByLabel("Show archived (1)").check()
    await row(page, "Release plan v2").locator(".cwd", { hasText: "archived" }).waitFor()
    await page.screenshot({ path: join(artifacts, "web-sessions-archived.png"), fullPage: true })
    await page.locator('summary[aria-label="Actions for Release plan v2"]').click()
    await page.getByRole("menuitem", { name: "Unarchive Release plan v2" }).click()
    await page.getByLabel("Show archived").uncheck()
    await row(page, "Release plan v2").waitFor()

    // Delete asks once more in the row, then the line goes from this page and from the server.
    await page.locator('summary[aria-label="Actions for Release plan v2"]').click()
    await page.getByRole("menuitem", { name: "Delete Release plan v2" }).click()
    const confirm = page.getByRole("alertdialog", { name: "Delete Release plan v2?" })
    await confirm.getByRole("button", { name: "Cancel" }).click()
    await confirm.waitFor({ state: "detached" })
    await page.locator('summary[aria-label="Actions for Release plan v2"]').click()
    await page.getByRole("menuitem", { name: "Delete Release plan v2" }).click()
    await confirm.getByRole("button", { name: "Delete" }).click()
    await row(page, "Release plan v2").waitFor({ state: "detached" })
    expect((await call(server, (client) => client.ListSessions())).map((line) => line.title)).not.toContain("Release plan v2")
    // Another client deletes the session open here: the page goes back to its start.
    await row(page, "Interrupted deploy").locator("a.session").click()
    await page.locator(".session-header h2", { hasText: "Interrupted deploy" }).waitFor()
    await call(server, (client) => client.DeleteSession({ sessionId: "ses_interrupted", by: "cli" }))
    await row(page, "Interrupted deploy").waitFor({ state: "detached" })
    await page.locator("main.pane.empty").waitFor()
    expect(new URL(page.url()).searchParams.get("session")).toBeNull()

    // One push stream, no polling.
    expect(calls.filter((tag) => tag === "ListSessions")).toEqual([])
    expect(calls.filter((tag) => tag === "WatchSessions").length).toBeGreaterThanOrEqual(1)

    // The server dies while the question waits; on the restarted one nobody waits on it any more.
    server.child.kill("SIGKILL")
    await page.locator(".server-banner", { hasText: "The server is not answering" }).waitFor()
    const restarted = await startScriptedServer(script, dirs)
    await page.goto(`${restarted.url}/?session=${first}#token=${restarted.token}`)
    await page.locator(".block.user", { hasText: "Cut the release" }).waitFor()
    const question = page.locator(".block.tool[data-tool-call-id=call_make]")
    await question.waitFor()
    await page.locator(".connection").waitFor({ state: "detached" })
    expect(await page.locator(".permission-card").count()).toBe(0)
    expect(await question.locator(".tool-state").textContent()).toMatch(/^(question withdrawn|not run)$/)
    await page.screenshot({ path: join(artifacts, "web-sessions-withdrawn.png"), fullPage: true })
    expect(pageErrors).toEqual([])
  })
})
