import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { AgentClient, clientLayer } from "../../src/rpc/client.js"
import { artifacts, assertWebBuilt, browserTestKit, openNewSession } from "./browser.js"

/**
 * A plan on the web page, in a real browser against the real, built server: the plan the model
 * proposed in plan mode, rendered as Markdown (its HTML shown as text, never run), with the
 * choices to carry it out; approving it leaves plan mode for the chosen mode, recorded as the
 * web page's, and the turn goes on.
 */
const { tempDir, startScriptedServer, openPage } = browserTestKit()

const plan = [
  "## Plan",
  "",
  "- write `a.txt`",
  "- check it",
  "",
  "<img src=\"x\" onerror=\"window.__injected = 'plan'\">",
  ""
].join("\n")

const script = {
  responses: [
    { chunks: [{ toolCall: { id: "call_plan", name: "exit_plan_mode", input: { plan } } }] },
    { chunks: [{ toolCall: { id: "call_write", name: "write_file", input: { path: "a.txt", content: "hi\n" } } }] },
    "Written."
  ]
}

describe("a plan on the web page", () => {
  it("shows the plan safely with its choices; approving it in accept-edits lets the turn's write run", { timeout: 150_000 }, async () => {
    assertWebBuilt()
    const workspace = tempDir("web-plan-workspace-")
    const server = await startScriptedServer(script)
    const { page, pageErrors } = await openPage()
    await openNewSession(page, server, workspace)
    // The page has no mode picker: the session is put in plan mode over the API, as another client would.
    const sessionId = new URL(page.url()).searchParams.get("session") ?? ""
    await Effect.runPromise(
      Effect.flatMap(AgentClient, (client) => client.SetMode({ sessionId, mode: "plan", by: "test" })).pipe(
        Effect.provide(clientLayer({ url: server.url, token: server.token }))
      )
    )

    await page.locator("textarea[name=prompt]").fill("add a.txt")
    await page.getByRole("button", { name: "Send" }).click()
    const block = page.locator('.block.tool[data-tool-call-id="call_plan"]')
    const card = block.locator(".plan-card")
    await card.waitFor()
    expect(await block.locator(".tool-state").textContent()).toBe("waiting for approval")
    expect(await block.locator(".plan .markdown h2").textContent()).toBe("Plan")
    expect(await block.locator(".plan .markdown li").allTextContents()).toEqual(["write a.txt", "check it"])
    expect(await block.locator(".plan img, .plan [onerror]").count()).toBe(0)
    expect(await block.locator(".plan .markdown").textContent()).toContain('<img src="x"')
    expect(await card.locator("button").allTextContents()).toEqual(["Approve, accept edits", "Approve, ask before edits", "Keep planning"])
    await block.screenshot({ path: join(artifacts, "web-plan.png") })

    await card.getByRole("button", { name: "Approve, accept edits" }).click()
    await page.locator(".block.turn-end.final").waitFor()
    expect(await block.locator(".plan-resolution.approved").textContent()).toBe("Plan approved by user, on the web: carried out in accept-edits mode")
    await page.locator(".block.note.mode", { hasText: "mode: accept-edits (set by rpc:web)" }).waitFor()
    expect(existsSync(join(workspace, "a.txt")) ? readFileSync(join(workspace, "a.txt"), "utf8") : undefined).toBe("hi\n")
    expect(await page.evaluate(() => Reflect.get(window, "__injected"))).toBeUndefined()
    expect(pageErrors).toEqual([])
  })
})
