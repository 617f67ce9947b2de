import AnthropicSdk from "@anthropic-ai/sdk"
import { Effect, Exit, Layer, Redacted, Scope, Stream } from "effect"
import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import * as SessionEngine from "../../src/core/SessionEngine.js"
import type { ConversationMessage, ModelRequest } from "../../src/domain/model.js"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import * as SqliteStore from "../../src/layers/event-store/sqlite.js"
import * as Anthropic from "../../src/layers/model/anthropic.js"
import { toAnthropicParams } from "../../src/layers/model/anthropic-request.js"
import { localTools } from "../../src/layers/tools/local.js"
import { sandboxOff } from "../../src/layers/sandbox/off.js"
import type { EventStore } from "../../src/services/EventStore.js"
import { cleanEnv, repoRoot, startService } from "./processes.js"
import { readChainEngine } from "./read-chain-engine.js"
import { median, printMachine } from "./report.js"

/**
 * The floors under the agent-loop figures (issue 8), warm and in one process, so a per-step
 * cost can be split into what the engine adds and what one HTTP round trip costs:
 * (a) a step of the engine itself: scripted model, real read_file, permission check, every
 *     event committed, on the memory and the SQLite store;
 * (b) one streaming request with a 200-message conversation (what step 100 of the chain
 *     sends) to the replay server in another process: raw node:http, fetch, the Anthropic
 *     SDK, and the ModelGateway adapter (its own node:http client and stream reader).
 * Diagnostics, not targets: `npm run bench -- floors`.
 */

const STEPS = 100
const ENGINE_RUNS = 7
const REQUESTS = 300
const WARMUP = 300
const HISTORY_STEPS = 100

const ms = (value: number) => `${value.toFixed(2)} ms`

/** Milliseconds per step of one turn of STEPS read_file calls in a fresh session. */
const engineRun = (workspace: string) =>
  Effect.gen(function* () {
    const engine = yield* SessionEngine.SessionEngine
    const session = yield* engine.createSession({ cwd: workspace, client: "bench" })
    const start = performance.now()
    let results = 0
    let last = ""
    yield* engine.runTurn({ sessionId: session.header.sessionId, content: "go" }).pipe(
      Stream.runForEach((event) =>
        Effect.sync(() => {
          if (event.type === "tool.completed" && !event.payload.isError) results++
          last = event.type === "turn.completed" ? event.payload.stopReason : event.type
        })
      )
    )
    const elapsed = performance.now() - start
    if (results !== STEPS || last !== "final") throw new Error(`the engine run had ${results} good tool results and ended with ${last}`)
    return elapsed / STEPS
  })

const engineFloor = async (tempDir: string) => {
  const workspace = path.join(tempDir, "ws")
  fs.mkdirSync(workspace, { recursive: true })
  fs.writeFileSync(path.join(workspace, "notes.txt"), "bench marker\nline two\n")
  console.log(`(a) the engine alone: one turn of ${STEPS} read_file steps, scripted model, in this process (median of ${ENGINE_RUNS} after 2 warm-up runs)`)
  const stores: ReadonlyArray<readonly [string, Layer.Layer<EventStore, unknown>]> = [
    ["memory store", MemoryStore.layer],
    ["SQLite store", SqliteStore.layer({ filename: path.join(tempDir, "floors.db") })]
  ]
  for (const [label, store] of stores) {
    const perStep = await Effect.runPromise(
      Effect.gen(function* () {
        const runs: Array<number> = []
        for (let i = 0; i < ENGINE_RUNS + 2; i++) runs.push(yield* engineRun(workspace))
        return median(runs.slice(2))
      }).pipe(Effect.provide(readChainEngine({ store, workspace, steps: STEPS })), Effect.scoped)
    )
    console.log(`  ${label.padEnd(14)} ${ms(perStep)} per step (6 events committed per step)`)
  }
}

/** The conversation at step HISTORY_STEPS of the chain: the prompt, then a call and its result per step. */
const chainRequest = (): ModelRequest => {
  const messages: Array<ConversationMessage> = [{ role: "user", content: [{ _tag: "text", text: "Read notes.txt until told to stop." }] }]
  for (let i = 1; i <= HISTORY_STEPS; i++) {
    const toolCallId = `toolu_${i}`
    messages.push({ role: "assistant", content: [{ _tag: "tool_call", toolCallId, name: "read_file", input: { path: "notes.txt" } }] })
    messages.push({ role: "user", content: [{ _tag: "tool_result", toolCallId, output: "     1\tbench marker\n     2\tline two", isError: false }] })
  }
  return { sessionId: "bench", system: "You are a coding agent.", messages, tools: localTools(sandboxOff).map((tool) => tool.definition) }
}

const textAnswer = (i: number) => ({
  kind: "stream",
  events: [
    { event: "message_start", data: { type: "message_start", message: { id: `msg_${i}`, type: "message", role: "assistant", model: "replay", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } } },
    { event: "content_block_start", data: { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } } },
    { event: "content_block_delta", data: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "ok" } } },
    { event: "content_block_stop", data: { type: "content_block_stop", index: 0 } },
    { event: "message_delta", data: { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 1 } } },
    { event: "message_stop", data: { type: "message_stop" } }
  ]
})

const perRequest = async (label: string, send: () => Promise<void>) => {
  for (let i = 0; i < WARMUP; i++) await send()
  const start = performance.now()
  for (let i = 0; i < REQUESTS; i++) await send()
  const each = (performance.now() - start) / REQUESTS
  console.log(`  ${label.padEnd(34)} ${ms(each)} per request`)
}

const httpFloor = async (tempDir: string) => {
  const kinds = 4
  const fixture = path.join(tempDir, "answers.json")
  const answers = Array.from({ length: kinds * (WARMUP + REQUESTS) }, (_, i) => textAnswer(i))
  fs.writeFileSync(fixture, JSON.stringify({ format: "anthropic", responses: answers }))
  const server = await startService(["--import", "tsx", "test/support/replay-server-main.ts", "--fixture", fixture, "--port", "0"], {
    cwd: repoRoot,
    env: cleanEnv(tempDir),
    ready: (output) => /^\{"url":"(http:\/\/[^"]+)"\}$/m.exec(output)?.[1]
  })
  try {
    const request = chainRequest()
    const params = toAnthropicParams(request, { model: "claude-sonnet-5-5", maxTokens: 1024, promptCaching: true })
    const body = JSON.stringify(params)
    const url = `${server.ready}/v1/messages`
    console.log(`\n(b) one streaming request of ${request.messages.length} messages (${(body.length / 1024).toFixed(1)} KiB) to the replay server in another process (mean of ${REQUESTS} after ${WARMUP})`)
    const agent = new http.Agent({ keepAlive: true })
    await perRequest("raw node:http, keep-alive", () =>
      new Promise<void>((resolve, reject) => {
        const req = http.request(url, { method: "POST", agent, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) } }, (res) => {
          res.resume()
          res.on("end", () => resolve())
          res.on("error", reject)
        })
        req.on("error", reject)
        req.end(body)
      })
    )
    agent.destroy()
    await perRequest("fetch (undici)", async () => {
      const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body })
      await response.text()
    })
    const client = new AnthropicSdk({ apiKey: "bench", baseURL: server.ready, maxRetries: 0, logLevel: "off" })
    await perRequest("Anthropic SDK, events iterated", async () => {
      let events = 0
      for await (const _ of await client.messages.create(params)) events++
      if (events === 0) throw new Error("the SDK streamed no events")
    })
    const scope = Effect.runSync(Scope.make())
    const gateway = await Effect.runPromise(
      Scope.extend(Anthropic.make({ apiKey: Redacted.make("bench"), baseUrl: server.ready, model: "claude-sonnet-5-5", maxOutputTokens: 1024 }), scope)
    )
    await perRequest("ModelGateway (the Anthropic adapter)", () => Effect.runPromise(Stream.runDrain(gateway.stream(request))))
    await Effect.runPromise(Scope.close(scope, Exit.void))
    const summary: unknown = await (await fetch(`${server.ready}/__requests`)).json()
    const times = serverTimes(summary)
    if (times.length > 0) console.log(`  (the replay server's own share: median ${ms(median(times))} per request, arrival to the answer's end)`)
  } finally {
    await server.stop()
  }
}

const serverTimes = (summary: unknown): Array<number> => {
  if (typeof summary !== "object" || summary === null || !("requests" in summary) || !Array.isArray(summary.requests)) return []
  const times: Array<number> = []
  for (const request of summary.requests) {
    const timing: unknown = typeof request === "object" && request !== null && "timing" in request ? request.timing : undefined
    if (typeof timing !== "object" || timing === null || !("receivedAt" in timing) || !("closedAt" in timing)) continue
    if (typeof timing.receivedAt === "number" && typeof timing.closedAt === "number") times.push(timing.closedAt - timing.receivedAt)
  }
  return times
}

export const run = async () => {
  printMachine("start")
  const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-floors-"))
  try {
    await engineFloor(tempDir)
    await httpFloor(tempDir)
  } finally {
    fs.rmSync(tempDir, { recursive: true, force: true })
  }
  printMachine("end")
}
