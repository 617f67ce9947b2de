import { describe, expect, it } from "@effect/vitest"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { Page } from "playwright-core"
import { artifacts, assertWebBuilt, browserTestKit, openNewSession } from "./browser.js"

/**
 * Rewind, redo and fork from the web page against the real, built server: a scripted session
 * writes a file in two turns; the page rewinds turn 2 (files and conversation), meets the drift
 * a hand edit makes before its redo, and forks the session into a new one.
 */
const { tempDir, startScriptedServer, openPage } = browserTestKit()

const write = (n: number) => ({ chunks: [{ toolCall: { id: `call_write_${n}`, name: "write_file", input: { path: "notes.txt", content: `version ${n}\n` } } }] })
const script = { responses: [write(1), "Wrote version 1.", write(2), "Wrote version 2."] }

/** Sends a prompt and waits for its turn to end, allowing the write if the page asks. */
const runTurn = async (page: Page, prompt: string, turnEnds: number) => {
  await page.locator("textarea[name=prompt]").fill(prompt)
  await page.getByRole("button", { name: "Send" }).click()
  const ended = page.locator(".block.turn-end.final").nth(turnEnds - 1)
  const asked = page.getByRole("button", { name: "Allow for session" })
  await Promise.race([ended.waitFor(), asked.waitFor()])
  if (await asked.isVisible()) await asked.click()
  await ended.waitFor()
  await page.locator(".idle").waitFor()
}

const slotsOfTurn = (page: Page, text: string) => page.locator(".slot", { has: page.locator(".block.user", { hasText: text }) })

describe("rewind and fork in the web page", () => {
  it("rewinds a turn's files and conversation, asks before overwriting a hand edit on redo, and forks into a new session", { timeout: 150_000 }, async () => {
    assertWebBuilt()
    const workspace = tempDir("web-rewind-workspace-")
    const notes = join(workspace, "notes.txt")
    writeFileSync(notes, "version 0\n")
    const server = await startScriptedServer(script)
    const { page, pageErrors } = await openPage()
    mkdirSync(artifacts, { recursive: true })

    await openNewSession(page, server, workspace)
    const source = new URL(page.url()).searchParams.get("session") ?? ""
    await runTurn(page, "Write version 1", 1)
    await runTurn(page, "Write version 2", 2)
    expect(readFileSync(notes, "utf8")).toBe("version 2\n")
    // Each turn's checkpoints are summed up on its end.
    await page.locator(".turn-end .checkpoint", { hasText: "1 file changed" }).nth(1).waitFor()

    // Rewind to before turn 2: the file is back, the turn stays in sight, dimmed as rewound.
    await page.locator(".rewind-menu").nth(1).locator("summary").click()
    await page.getByRole("menuitem", { name: "Files and conversation" }).click()
    await page.locator(".note.rewind", { hasText: "restored notes.txt" }).waitFor()
    await page.locator(".note.rewind", { hasText: "Conversation rewound by rpc:web" }).waitFor()
    await page.locator(".rewind-result", { hasText: "Rewound." }).waitFor()
    expect(readFileSync(notes, "utf8")).toBe("version 1\n")
    await page.locator(".slot.rewound .block.user", { hasText: "Write version 2" }).waitFor()
    await page.locator(".rewound-label").first().waitFor()
    expect(await page.locator(".slot.rewound .block.user", { hasText: "Write version 1" }).count()).toBe(0)
    // A rewound turn offers no actions.
    expect(await page.locator(".rewind-menu").count()).toBe(1)
    await page.screenshot({ path: join(artifacts, "web-rewind.png"), fullPage: true })

    // Someone edits the file by hand; the redo names it and changes nothing until told to.
    writeFileSync(notes, "edited by hand\n")
    await page.locator(".session-header").getByRole("button", { name: "Redo" }).click()
    const drift = page.locator(".rewind-drift")
    await drift.locator("code", { hasText: "notes.txt" }).waitFor()
    expect(readFileSync(notes, "utf8")).toBe("edited by hand\n")
    await page.screenshot({ path: join(artifacts, "web-rewind-drift.png"), fullPage: true })
    await drift.getByRole("button", { name: "Rewind anyway" }).click()
    await page.locator(".rewind-result", { hasText: "Redone." }).waitFor()
    // Nothing is left to redo.
    await page.locator(".session-header").getByRole("button", { name: "Redo" }).waitFor({ state: "detached" })
    expect(readFileSync(notes, "utf8")).toBe("version 2\n")
    await page.locator(".note.rewind.warning", { hasText: "overwrote changes made outside the agent: notes.txt" }).waitFor()
    await expect.poll(() => slotsOfTurn(page, "Write version 2").evaluate((slot) => slot.classList.contains("rewound"))).toBe(false)

    // Fork after turn 1: a new session whose history is the source's up to there.
    await page.getByRole("button", { name: "Fork from here" }).first().click()
    await page.waitForURL((url) => url.searchParams.get("session") !== source)
    await page.locator(".forked-from", { hasText: source }).waitFor()
    await page.locator(".block.user", { hasText: "Write version 1" }).waitFor()
    await page.locator(".block.answer", { hasText: "Wrote version 1." }).waitFor()
    expect(await page.locator(".block.user", { hasText: "Write version 2" }).count()).toBe(0)
    await page.locator(".sessions li.session-row", { hasText: "fork of" }).waitFor()
    await page.screenshot({ path: join(artifacts, "web-fork.png"), fullPage: true })

    // Its header links back to the source.
    await page.locator(".forked-from a").click()
    await page.waitForURL((url) => url.searchParams.get("session") === source)
    await page.locator(".block.user", { hasText: "Write version 2" }).waitFor()
    expect(pageErrors).toEqual([])
  })
})
