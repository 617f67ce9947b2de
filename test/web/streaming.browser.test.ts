import { describe, expect, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { AgentClient, clientLayer } from "../../src/rpc/client.js"
import { artifacts, assertWebBuilt, browserTestKit, openNewSession } from "./browser.js"

/**
 * A long streamed answer in a real browser: 5,000 chunks of Markdown. The figure that
 * matters (how long after the last event reached a client the page shows it) is printed and
 * kept in test-artifacts; the bound checked is generous, so a loaded machine does not fail it.
 */
const { tempDir, startScriptedServer, openPage } = browserTestKit()

const chunkCount = 5_000
const chunkText = (i: number) => {
  if (i % 250 === 0) return `\n\n## Part ${i / 250 + 1}\n\n`
  if (i % 50 === 0) return `\n\n- item **${i}** with \`code\`\n`
  return `word${i} `
}
const chunks = Array.from({ length: chunkCount }, (_, i) => ({ text: chunkText(i) }))
const lastWord = `word${chunkCount - 1}`

/**
 * When a second client, outside the page, hears the turn end: the last event has reached
 * clients. It resumes after being dropped for lagging, as any client does.
 */
const heardTurnEnd = (server: { readonly url: string; readonly token: string }, sessionId: string) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const client = yield* AgentClient
      let after = 0
      let ended = false
      while (!ended) {
        yield* client.Subscribe({ sessionId, afterSequence: after }).pipe(
          Stream.takeUntil((frame) => frame._tag === "Event" && frame.event.type === "turn.completed"),
          Stream.runForEach((frame) =>
            Effect.sync(() => {
              if (frame._tag !== "Event") return
              after = frame.event.sequence
              ended = frame.event.type === "turn.completed"
            })
          ),
          Effect.catchTag("SubscriberLagged", () => Effect.void)
        )
      }
      return Date.now()
    }).pipe(Effect.scoped, Effect.provide(clientLayer(server)))
  )

describe("a long streamed answer in the web page", () => {
  it("shows the last of 5,000 chunks soon after it arrives", { timeout: 180_000 }, async () => {
    assertWebBuilt()
    const workspace = tempDir("web-stream-workspace-")
    const server = await startScriptedServer({ responses: [{ chunks, delayMs: 1 }] })
    const { page, pageErrors } = await openPage()
    await openNewSession(page, server, workspace)
    const sessionId = new URL(page.url()).searchParams.get("session") ?? ""

    const heard = heardTurnEnd(server, sessionId)
    const sent = Date.now()
    await page.locator("textarea[name=prompt]").fill("Write a long answer")
    await page.getByRole("button", { name: "Send" }).click()
    await page.locator(".block.turn-end.final").waitFor({ timeout: 150_000 })
    await page.locator(".block.answer", { hasText: lastWord }).waitFor()
    const shown = Date.now()
    const lastEvent = await heard
    const lagMs = Math.max(0, shown - lastEvent)

    mkdirSync(artifacts, { recursive: true })
    const figures = { chunks: chunkCount, turnMs: lastEvent - sent, lagAfterLastEventMs: lagMs }
    writeFileSync(join(artifacts, "web-streaming.json"), `${JSON.stringify(figures, null, 2)}\n`)
    process.stdout.write(`web streaming: ${JSON.stringify(figures)}\n`)
    await page.screenshot({ path: join(artifacts, "web-streaming.png") })

    expect(lagMs).toBeLessThan(20_000)
    expect(pageErrors).toEqual([])
  })
})
