import { describe, expect, it } from "@effect/vitest"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { Page } from "playwright-core"
import { repoRoot } from "../support/cli.js"
import { artifacts, assertWebBuilt, browserTestKit, openNewSession } from "./browser.js"

/**
 * How the page renders a turn, in a real browser against the real, built server: the
 * scripted model's Markdown (with a code block, and HTML and links that must not run), each
 * tool its own way (a read, an edit's diff, a command with its exit code, an MCP call's
 * arguments), the turn's facts at its end, and all of it on a 400 px wide screen.
 */
const { tempDir, startScriptedServer, openPage } = browserTestKit()

const markdown = [
  "## Plan",
  "",
  "I will **read** the notes, *edit* them and run the build. Some `inline code` too.",
  "",
  "- read `notes.txt`",
  "- fix the status",
  "",
  "| step | tool |",
  "|:--|:--|",
  "| read | read_file |",
  "| edit | edit_file |",
  "",
  "```ts",
  "const status: string = \"final\"",
  "```",
  "",
  "<script>window.__injected = 'script'</script>",
  "",
  "<img src=\"x\" onerror=\"window.__injected = 'onerror'\">",
  "",
  "A [javascript link](javascript:window.__injected='link') and [a real one](https://example.com/docs).",
  ""
].join("\n")

const everything = join(repoRoot, "node_modules/@modelcontextprotocol/server-everything/dist/index.js")

const script = {
  responses: [
    {
      // Streamed in small pieces, as a model does.
      chunks: [
        ...(markdown.match(/[\s\S]{1,24}/g) ?? []).map((text) => ({ text })),
        { toolCall: { id: "call_read", name: "read_file", input: { path: "notes.txt", offset: 2, limit: 2 } } },
        { toolCall: { id: "call_edit", name: "edit_file", input: { path: "notes.txt", old_string: "status: draft", new_string: "status: final" } } },
        { toolCall: { id: "call_build", name: "shell", input: { command: "echo built notes; exit 3", description: "build the notes" } } },
        { toolCall: { id: "call_clean", name: "shell", input: { command: "rm -rf build" } } },
        { toolCall: { id: "call_sum", name: "mcp__everything__get-sum", input: { a: 2, b: 3 } } }
      ],
      usage: { inputTokens: 1200, outputTokens: 80, cacheReadTokens: 1000, cacheWriteTokens: 150 }
    },
    {
      chunks: [{ text: "Done: the status is *final*. The build exited with **3**." }],
      usage: { inputTokens: 1500, outputTokens: 20, cacheReadTokens: 1100 }
    }
  ]
}

const tool = (page: Page, toolCallId: string) => page.locator(`.block.tool[data-tool-call-id="${toolCallId}"]`)

/** Answers the permission card of a call with one of its buttons. */
const answer = async (page: Page, toolCallId: string, label: string) => {
  await tool(page, toolCallId).locator(".permission-card").getByRole("button", { name: label, exact: true }).click()
  await tool(page, toolCallId).locator(".permission-card").waitFor({ state: "detached" })
}

describe("how the web page renders a turn", () => {
  it("renders Markdown safely, each tool its own way, the turn's facts, and a narrow screen", { timeout: 150_000 }, async () => {
    assertWebBuilt()
    const workspace = tempDir("web-render-workspace-")
    const notes = join(workspace, "notes.txt")
    writeFileSync(notes, "# notes\nstatus: draft\nowner: sam\n")
    // The user's own server: a project's would wait for the project to be trusted.
    const dirs = { data: tempDir("web-data-"), config: tempDir("web-config-") }
    writeFileSync(join(dirs.config, "mcp.json"), JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everything, "stdio"] } } }))
    const server = await startScriptedServer(script, dirs)
    const { page, pageErrors } = await openPage()
    mkdirSync(artifacts, { recursive: true })

    await openNewSession(page, server, workspace)
    await page.locator("textarea[name=prompt]").fill("Fix the status in my notes and build them")
    await page.getByRole("button", { name: "Send" }).click()

    // Each question as it comes: allow the edit, the build and the MCP call; deny the clean-up for good.
    await answer(page, "call_edit", "Allow once")
    await answer(page, "call_build", "Allow once")
    await tool(page, "call_clean").locator(".permission-card").waitFor()
    await expect(tool(page, "call_clean").locator(".permission-card button").allTextContents()).resolves.toEqual([
      "Allow once",
      "Allow for session",
      "Always allow",
      "Deny",
      "Deny always"
    ])
    await answer(page, "call_clean", "Deny always")
    await answer(page, "call_sum", "Allow once")
    await page.locator(".block.turn-end.final").waitFor()
    await page.locator(".idle").waitFor()

    // Markdown: structure, a highlighted code block, and nothing the model wrote as HTML or script ran.
    const answerBlock = page.locator(".block.answer").first()
    await answerBlock.locator("h2", { hasText: "Plan" }).waitFor()
    expect(await answerBlock.locator("strong").first().textContent()).toBe("read")
    expect(await answerBlock.locator("li").allTextContents()).toEqual(["read notes.txt", "fix the status"])
    expect(await answerBlock.locator("table th").allTextContents()).toEqual(["step", "tool"])
    expect(await answerBlock.locator("pre code.hljs.language-ts .hljs-keyword").first().textContent()).toBe("const")
    expect(await answerBlock.locator("pre code .hljs-string").first().textContent()).toBe('"final"')
    expect(await page.evaluate(() => Reflect.get(window, "__injected"))).toBeUndefined()
    expect(await answerBlock.locator("script, img, iframe, [onerror], [onclick]").count()).toBe(0)
    expect(await answerBlock.textContent()).toContain("<script>window.__injected = 'script'</script>")
    const hrefs = await answerBlock.locator("a").evaluateAll((links) => links.map((a) => a.getAttribute("href")))
    expect(hrefs).toEqual(["https://example.com/docs"])
    await answerBlock.getByText("javascript link").click()
    expect(await page.evaluate(() => Reflect.get(window, "__injected"))).toBeUndefined()
    expect(await page.locator(".block.answer").nth(1).locator("em").textContent()).toBe("final")
    await answerBlock.screenshot({ path: join(artifacts, "web-markdown.png") })

    // Each tool its own way.
    const read = tool(page, "call_read")
    expect(await read.locator(".tool-subject").textContent()).toBe("notes.txt lines 2–3")
    const edit = tool(page, "call_edit")
    expect(await edit.locator(".tool-subject").textContent()).toBe("edited notes.txt")
    await edit.locator(".diff .del", { hasText: "-status: draft" }).waitFor()
    await edit.locator(".diff .add", { hasText: "+status: final" }).waitFor()
    const build = tool(page, "call_build")
    expect(await build.locator(".tool-subject").textContent()).toBe("build the notes")
    expect(await build.locator("pre.command").textContent()).toBe("$ echo built notes; exit 3")
    expect(await build.getByText("echo built notes; exit 3").count()).toBe(1)
    expect(await build.locator(".output").textContent()).toContain("built notes")
    expect(await build.locator(".exit.failed").textContent()).toBe("exit code 3")
    expect(await tool(page, "call_clean").locator(".permission.deny").textContent()).toBe("denied always · by user")
    const sum = tool(page, "call_sum")
    expect(await sum.locator(".mcp-server").textContent()).toBe("everything")
    expect(await sum.locator(".mcp-tool").textContent()).toBe("get-sum")
    expect(await sum.locator("table.args tr").evaluateAll((rows) => rows.map((row) => row.textContent))).toEqual(["a2", "b3"])
    expect(await sum.locator(".output").textContent()).toContain("5")
    expect(readFileSync(notes, "utf8")).toBe("# notes\nstatus: final\nowner: sam\n")

    // The turn's facts: tokens summed over both steps, and a link to the diff of the file it changed.
    const facts = page.locator(".block.turn-end .turn-stats")
    expect(await facts.locator(".tokens").textContent()).toBe("2,700 in · 100 out · 2,100 cache read · 150 cache write")
    expect(await facts.locator(".duration").textContent()).toMatch(/^\d+(\.\d)? (ms|s)$/)
    const changed = facts.locator(".changed a", { hasText: "notes.txt" })
    expect(await changed.getAttribute("href")).toBe("#tool-call_edit")
    await changed.click()
    await page.locator(".block.tool:target[data-tool-call-id=call_edit]").waitFor()
    await page.screenshot({ path: join(artifacts, "web-rendering.png"), fullPage: true })
    await page.locator(".block.turn-end").screenshot({ path: join(artifacts, "web-turn-facts.png") })

    // A 400 px wide screen: the sidebar hides behind a toggle, the timeline keeps its width.
    await page.setViewportSize({ width: 400, height: 800 })
    await page.locator(".sessions").waitFor({ state: "hidden" })
    const paragraph = await answerBlock.locator("p").first().boundingBox()
    expect(paragraph?.width ?? 0).toBeGreaterThan(300)
    await page.screenshot({ path: join(artifacts, "web-narrow.png") })
    await page.getByRole("button", { name: "☰ Sessions" }).click()
    await page.locator(".sessions").waitFor({ state: "visible" })
    // Once it has slid in.
    await page.locator(".sessions").evaluate((nav) => Promise.all(nav.getAnimations().map((animation) => animation.finished)))
    await page.screenshot({ path: join(artifacts, "web-narrow-sidebar.png") })
    await page.locator(".sessions a.session").first().click()
    await page.locator(".sessions").waitFor({ state: "hidden" })

    expect(pageErrors).toEqual([])
  })

  it("tells a page without a token where to get one, with the server's real address", { timeout: 60_000 }, async () => {
    assertWebBuilt()
    const server = await startScriptedServer({ responses: [] })
    const { page, pageErrors } = await openPage()
    await page.goto(`${server.url}/`)
    const help = page.locator(".no-token pre")
    await help.waitFor()
    expect(await help.textContent()).toBe(`custom-agent is serving on ${server.url}\nopen ${server.url}/#token=…`)
    mkdirSync(artifacts, { recursive: true })
    await page.screenshot({ path: join(artifacts, "web-no-token.png") })
    expect(pageErrors).toEqual([])
  })
})
