import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { AgentClient, clientLayer } from "../../src/rpc/client.js"
import { artifacts, assertWebBuilt, browserTestKit, openNewSession } from "./browser.js"

/**
 * A command's output in the web page while it runs: the real, built server runs a shell command
 * that prints, then waits for the test to create `go`. The page shows what it printed under the
 * command before the result exists; the result takes its place when it ends. A second page that
 * opens the session mid-command sees the same (the output is in the log, not only on the wire).
 */
const { tempDir, startScriptedServer, openPage } = browserTestKit()

const command = "printf 'compiling step one\\n'; while [ ! -e go ]; do sleep 0.05; done; printf 'finished\\n'"
const script = { responses: [{ chunks: [{ toolCall: { id: "call_build", name: "shell", input: { command } } }] }, "Built."] }

type Server = { readonly url: string; readonly token: string }

const prompt = (server: Server, sessionId: string) =>
  Effect.runPromise(
    Effect.flatMap(AgentClient, (client) => client.Prompt({ sessionId, content: "build it", permissionMode: "bypass" })).pipe(Effect.scoped, Effect.provide(clientLayer(server)))
  )

describe("a running command in the web page", () => {
  it("shows its output so far while it runs, to a page open from the start and to one opened mid-command", { timeout: 120_000 }, async () => {
    assertWebBuilt()
    const workspace = tempDir("web-live-workspace-")
    const server = await startScriptedServer(script)
    const { page, pageErrors, newPage } = await openPage()
    await openNewSession(page, server, workspace)
    const sessionId = new URL(page.url()).searchParams.get("session") ?? ""
    await prompt(server, sessionId)

    const tool = page.locator('.block.tool[data-tool-call-id="call_build"]')
    await tool.locator("pre.output.live", { hasText: "compiling step one" }).waitFor()
    expect(await tool.locator(".tool-state").textContent()).toBe("running…")
    expect(await tool.locator("pre.output:not(.live)").count()).toBe(0)
    mkdirSync(artifacts, { recursive: true })
    await tool.screenshot({ path: join(artifacts, "web-live-output.png") })

    // Opened while the command still waits: the log has what it printed.
    const late = await newPage()
    await late.goto(`${server.url}/?session=${sessionId}#token=${server.token}`)
    await late.locator('.block.tool[data-tool-call-id="call_build"] pre.output.live', { hasText: "compiling step one" }).waitFor()
    await late.close()

    writeFileSync(join(workspace, "go"), "")
    await tool.locator("pre.output:not(.live)", { hasText: "finished" }).waitFor()
    expect(await tool.locator("pre.output.live").count()).toBe(0)
    await page.locator(".block.turn-end.final").waitFor()
    expect(pageErrors).toEqual([])
  })
})
