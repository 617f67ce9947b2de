import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, mkdirSync, realpathSync } from "node:fs"
import { join } from "node:path"
import { AgentClient, clientLayer } from "../../src/rpc/client.js"
import { assertWebBuilt, browserTestKit, openNewSession } from "./browser.js"

/**
 * The web page's permission card says what a lasting answer would store and offers how far it
 * reaches (the question's own offers); the host stores the one picked, and the next write it
 * covers runs without a question.
 */
const { tempDir, startScriptedServer, openPage } = browserTestKit()

type Server = { readonly url: string; readonly token: string }
const call = <A, E>(server: Server, use: (client: AgentClient["Type"]) => Effect.Effect<A, E>) =>
  Effect.runPromise(Effect.flatMap(AgentClient, use).pipe(Effect.scoped, Effect.provide(clientLayer(server))))

const write = (id: string, path: string) => ({ chunks: [{ toolCall: { id, name: "write_file", input: { path, content: "x\n" } } }] })
const script = { responses: [write("call_a", "src/a.ts"), "wrote a", write("call_b", "src/deep/b.ts"), "wrote b"] }

describe("the web page's permission card", () => {
  it("shows what a lasting answer stores, offers how far it reaches, and the pick is what the host stores", { timeout: 120_000 }, async () => {
    assertWebBuilt()
    const workspace = realpathSync(tempDir("web-reach-"))
    mkdirSync(join(workspace, "src", "deep"), { recursive: true })
    const server = await startScriptedServer(script)
    const { page, pageErrors } = await openPage()
    await openNewSession(page, server, workspace)
    await page.locator("textarea[name=prompt]").fill("write a")
    await page.getByRole("button", { name: "Send" }).click()

    const card = page.locator(".permission-card")
    await card.locator(".lasting", { hasText: "Session and always cover changes to src/a.ts" }).waitFor()
    const reach = card.getByRole("combobox", { name: "What a lasting answer remembers" })
    expect(await reach.locator("option").allTextContents()).toEqual(["src/a.ts (as shown)", "src/*", "src/**"])
    await reach.selectOption({ label: "src/**" })
    await card.locator(".lasting", { hasText: "Session and always cover changes to src/**" }).waitFor()
    await card.getByRole("button", { name: "Always allow" }).click()
    await page.locator(".block.answer", { hasText: "wrote a" }).waitFor()
    const remembered = await call(server, (client) => client.ListRememberedAnswers({ workspaceRoot: workspace }))
    expect(remembered.map((answer) => [answer.decision, answer.scope, answer.paths])).toEqual([["allow", "always", ["src/**"]]])

    // Covered by the pick: no question this time.
    await page.locator("textarea[name=prompt]").fill("write b")
    await page.getByRole("button", { name: "Send" }).click()
    await page.locator(".block.answer", { hasText: "wrote b" }).waitFor()
    expect(existsSync(join(workspace, "src", "deep", "b.ts"))).toBe(true)
    expect(pageErrors).toEqual([])
  })
})
