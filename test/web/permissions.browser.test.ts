import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, mkdirSync, realpathSync } from "node:fs"
import { join } from "node:path"
import { AgentClient, clientLayer } from "../../src/rpc/client.js"
import { assertWebBuilt, browserTestKit, openNewSession } from "./browser.js"

/**
 * The page's permissions panel (as `custom-agent permissions` and Claude Code's `/permissions`):
 * the answers remembered always or for a session, in words, each revocable; after a revoke the
 * same call is asked again.
 */
const { tempDir, startScriptedServer, openPage } = browserTestKit()

type Server = { readonly url: string; readonly token: string }
const call = <A, E>(server: Server, use: (client: AgentClient["Type"]) => Effect.Effect<A, E>) =>
  Effect.runPromise(Effect.flatMap(AgentClient, use).pipe(Effect.scoped, Effect.provide(clientLayer(server))))

const write = (id: string, content: string) => ({ chunks: [{ toolCall: { id, name: "write_file", input: { path: "src/a.ts", content } } }] })
const script = { responses: [write("call_a", "one\n"), "wrote once", write("call_b", "two\n"), "wrote twice"] }

describe("the web page's permissions panel", () => {
  it("lists a remembered answer in words, revokes it as the page, and the next such call is asked again", { timeout: 120_000 }, async () => {
    assertWebBuilt()
    const workspace = realpathSync(tempDir("web-permissions-"))
    mkdirSync(join(workspace, "src"), { recursive: true })
    const server = await startScriptedServer(script)
    const { page, pageErrors } = await openPage()
    await openNewSession(page, server, workspace)
    const sessionUrl = page.url()

    await page.locator("textarea[name=prompt]").fill("write it")
    await page.getByRole("button", { name: "Send" }).click()
    await page.locator(".permission-card").getByRole("button", { name: "Always allow" }).click()
    await page.locator(".block.answer", { hasText: "wrote once" }).waitFor()
    expect(existsSync(join(workspace, "src", "a.ts"))).toBe(true)

    await page.getByRole("link", { name: "Permissions", exact: true }).click()
    const group = page.getByRole("region", { name: `remembered answers in ${workspace}` })
    const row = group.locator(".remembered-answer")
    await row.waitFor()
    expect(await row.locator(".memory-text").textContent()).toBe("Allow changes to src/a.ts (write_file, edit_file)")
    expect(await row.locator(".memory-facts").textContent()).toContain("write_file · always")
    expect(new URL(page.url()).search).toBe("?view=permissions")

    await row.getByRole("button", { name: "Revoke" }).click()
    await page.locator(".permissions-pane", { hasText: "No remembered answers" }).waitFor()
    expect(await call(server, (client) => client.ListRememberedAnswers({ workspaceRoot: workspace }))).toEqual([])

    // Revoked: the same write is asked about again.
    await page.goto(sessionUrl)
    await page.locator("textarea[name=prompt]").fill("write it again")
    await page.getByRole("button", { name: "Send" }).click()
    const card = page.locator(".permission-card")
    await card.waitFor()
    expect(await card.textContent()).toContain("src/a.ts")
    await card.getByRole("button", { name: "Allow once" }).click()
    await page.locator(".block.answer", { hasText: "wrote twice" }).waitFor()
    expect(pageErrors).toEqual([])
  })

  it("shows a question's path with its invisible characters by code point: a bidi override cannot make it read as another name", { timeout: 120_000 }, async () => {
    assertWebBuilt()
    const workspace = realpathSync(tempDir("web-invisible-"))
    const server = await startScriptedServer({
      responses: [{ chunks: [{ toolCall: { id: "call_x", name: "write_file", input: { path: "notes\u202egnp.sh", content: "x\n" } } }] }, "denied"]
    })
    const { page, pageErrors } = await openPage()
    await openNewSession(page, server, workspace)
    await page.locator("textarea[name=prompt]").fill("write it")
    await page.getByRole("button", { name: "Send" }).click()
    const card = page.locator(".permission-card")
    await card.waitFor()
    const shown = (await card.textContent()) ?? ""
    expect(shown).toContain("notes<U+202E>gnp.sh")
    expect(shown).not.toContain("\u202e")
    await card.getByRole("button", { name: "Deny", exact: true }).click()
    await page.locator(".block.answer", { hasText: "denied" }).waitFor()
    expect(pageErrors).toEqual([])
  })
})
