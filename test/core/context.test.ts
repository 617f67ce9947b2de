import { afterAll, describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Either, Layer, Option, Ref, Stream } from "effect"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { rebuildRequests } from "../../src/core/replay-requests.js"
import { SessionEngine } from "../../src/core/SessionEngine.js"
import type { AssistantPart, UserPart } from "../../src/domain/model.js"
import * as ContextSources from "../../src/layers/context/builder.js"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import * as MemoryFile from "../../src/layers/memory/file-store.js"
import type { Script } from "../../src/layers/model/scripted.js"
import * as SkillFolders from "../../src/layers/skills/folders.js"
import { localTools } from "../../src/layers/tools/local.js"
import { sandboxOff } from "../../src/layers/sandbox/off.js"
import { engineLayer, type HarnessOptions, replayAll } from "../support/engine-harness.js"
import { RecordedRequests, recordingScripted } from "../support/recording-model.js"
import { eventsOf } from "../support/events.js"
import { makeTemp } from "../support/temp-dirs.js"

const temps = makeTemp()
afterAll(temps.cleanup)
const temp = temps.dir

/** An engine whose context comes from the real builder (instruction files, memories, skills). */
const setup = (script: Script, options: { readonly configDir: string; readonly engine?: HarnessOptions["engine"]; readonly tools?: boolean }) => {
  const memoryFile = join(temp("ctx-mem-"), "memory.json")
  const recording = recordingScripted(script)
  const context = ContextSources.layer({ configDir: options.configDir }).pipe(
    Layer.provide(Layer.mergeAll(SkillFolders.layer({ configDir: options.configDir }), MemoryFile.layer(memoryFile)))
  )
  return engineLayer(MemoryStore.layer, undefined, {
    model: recording,
    context,
    memoryFile,
    ...(options.tools === true ? { tools: localTools(sandboxOff) } : {}),
    ...(options.engine === undefined ? {} : { engine: options.engine })
  }).pipe(Layer.provideMerge(recording))
}

const runTurn = (sessionId: string, content: string) =>
  Effect.flatMap(SessionEngine, (engine) => Stream.runCollect(engine.runTurn({ sessionId, content }))).pipe(Effect.map(Chunk.toArray))

describe("the ContextBuilder and the context the engine records", () => {
  it.live("instruction files in order of precedence; each source's text recorded once and again when it changes; requests rebuilt from the log alone", () => {
    const configDir = temp("ctx-config-")
    const repo = temp("ctx-repo-")
    mkdirSync(join(repo, ".git"))
    mkdirSync(join(repo, "pkg"))
    writeFileSync(join(configDir, "AGENTS.md"), "USER RULES: be brief.")
    writeFileSync(join(repo, "AGENTS.md"), "ROOT RULES: use tabs.")
    writeFileSync(join(repo, "pkg", "CLAUDE.md"), "PKG RULES: this package is legacy.")
    return Effect.gen(function* () {
      const engine = yield* SessionEngine
      const { header } = yield* engine.createSession({ cwd: join(repo, "pkg"), client: "test" })
      const first = yield* runTurn(header.sessionId, "one")
      const recorded = eventsOf(first, "context.source").map((e) => [e.payload.kind, e.payload.id])
      expect(recorded).toEqual([
        ["system", "built-in"],
        ["instructions", join(configDir, "AGENTS.md")],
        ["instructions", join(repo, "AGENTS.md")],
        ["instructions", join(repo, "pkg", "CLAUDE.md")]
      ])
      const built = eventsOf(first, "context.built")[0]?.payload
      expect(built?.sources.map((s) => s.kind)).toEqual(["system", "instructions", "instructions", "instructions"])
      expect(built?.sources.every((s) => s.tokens > 0)).toBe(true)
      expect(built?.totalTokens).toBeGreaterThan(built?.historyTokens ?? 0)
      const requests = yield* Effect.flatMap(RecordedRequests, Ref.get)
      const system = requests[0]?.system ?? ""
      expect(system.indexOf("USER RULES")).toBeLessThan(system.indexOf("ROOT RULES"))
      expect(system.indexOf("ROOT RULES")).toBeLessThan(system.indexOf("PKG RULES"))

      writeFileSync(join(repo, "AGENTS.md"), "ROOT RULES: use spaces.")
      const second = yield* runTurn(header.sessionId, "two")
      expect(eventsOf(second, "context.source").map((e) => [e.payload.id, e.payload.text])).toEqual([[join(repo, "AGENTS.md"), "ROOT RULES: use spaces."]])

      // Change the files again: the log alone rebuilds exactly what was sent.
      writeFileSync(join(repo, "AGENTS.md"), "ROOT RULES: something else entirely.")
      writeFileSync(join(configDir, "AGENTS.md"), "")
      const log = yield* replayAll(header.sessionId)
      const rebuilt = Either.getOrThrow(rebuildRequests(log))
      const sent = yield* Effect.flatMap(RecordedRequests, Ref.get)
      expect(rebuilt.map((r) => ({ system: r.system, messages: r.messages }))).toEqual(sent.map((r) => ({ system: r.system, messages: r.messages })))
      // A log that lost a source's text cannot be rebuilt, and says which.
      const truncated = rebuildRequests(log.filter((e) => !(e.type === "context.source" && e.payload.kind === "system")))
      expect(Either.isLeft(truncated) && truncated.left.message).toContain("system built-in")
    }).pipe(Effect.provide(setup({ responses: ["first answer", "second answer"] }, { configDir })))
  })

  it.live("a history ten times the window: older turns are compacted, every request fits its budget, and the log keeps everything", () => {
    const configDir = temp("ctx-config-")
    const turns = 20
    const prompt = (i: number) => `Turn ${i}: ${"lorem ipsum dolor sit amet ".repeat(240)}`
    return Effect.gen(function* () {
      const engine = yield* SessionEngine
      const { header } = yield* engine.createSession({ cwd: temp("ctx-ws-"), client: "test" })
      for (let i = 0; i < turns; i++) yield* runTurn(header.sessionId, prompt(i))
      const log = yield* replayAll(header.sessionId)
      const userText = eventsOf(log, "user.message").reduce((sum, e) => sum + e.payload.content.length, 0)
      expect(userText / 3).toBeGreaterThan(10 * 4_000)
      const built = eventsOf(log, "context.built")
      expect(built).toHaveLength(turns)
      for (const b of built) expect(b.payload.totalTokens).toBeLessThanOrEqual(b.payload.budget)
      const compactions = eventsOf(log, "context.compacted")
      expect(compactions.length).toBeGreaterThan(2)
      expect(compactions.every((c) => c.payload.tokensAfter < c.payload.tokensBefore && c.payload.trigger === "budget")).toBe(true)
      // The log keeps every original message whole.
      expect(eventsOf(log, "user.message").map((e) => e.payload.content)).toEqual(Array.from({ length: turns }, (_, i) => prompt(i)))
      // The last request starts with the summary, then the turns it did not cover.
      const sent = yield* Effect.flatMap(RecordedRequests, Ref.get)
      const last = sent.filter((r) => r.purpose === "turn").at(-1)
      const opening = last?.messages[0]?.content[0]
      expect(opening?._tag === "text" && opening.text).toContain("Summary of the earlier conversation")
    }).pipe(
      Effect.provide(
        setup({ contextWindow: 4_000, maxOutputTokens: 500, responses: Array.from({ length: turns }, (_, i) => `answer ${i}`) }, { configDir })
      )
    )
  })

  it.live("a tool result larger than the cap is cut in the model's view with a note, whole in the log", () => {
    const configDir = temp("ctx-config-")
    const workspace = temp("ctx-ws-")
    writeFileSync(join(workspace, "big.txt"), Array.from({ length: 400 }, (_, i) => `line ${i} ${"x".repeat(20)}`).join("\n"))
    return Effect.gen(function* () {
      const engine = yield* SessionEngine
      const { header } = yield* engine.createSession({ cwd: workspace, client: "test" })
      const events = yield* runTurn(header.sessionId, "read it")
      const full = eventsOf(events, "tool.completed")[0]?.payload.output ?? ""
      expect(full.length).toBeGreaterThan(5_000)
      const sent = yield* Effect.flatMap(RecordedRequests, Ref.get)
      const seen = sent[1]?.messages.flatMap((m): ReadonlyArray<AssistantPart | UserPart> => m.content).find((p) => p._tag === "tool_result")
      const output = seen?._tag === "tool_result" ? seen.output : ""
      expect(output.length).toBeLessThan(2_000)
      expect(output).toContain("left out of the model's view")
      expect(output.startsWith(full.slice(0, 100))).toBe(true)
    }).pipe(
      Effect.provide(
        setup(
          { responses: [{ chunks: [{ toolCall: { name: "read_file", input: { path: "big.txt" } } }] }, "done"] },
          { configDir, tools: true, engine: { maxSteps: 10, compactionThreshold: 0.8, toolResultChars: 1_000 } }
        )
      )
    )
  })

  it.live("compaction on request summarizes the completed turns in sections; later requests use the summary; nothing new, nothing done", () => {
    const configDir = temp("ctx-config-")
    const answer = "## Goal\nAnswer the user's questions.\n\n## Progress\nThe user asked two questions.\n\n## Next step\nWait for the third.\n\n## Open questions\nnone"
    return Effect.gen(function* () {
      const engine = yield* SessionEngine
      const { header } = yield* engine.createSession({ cwd: temp("ctx-ws-"), client: "test" })
      yield* runTurn(header.sessionId, "first question")
      yield* runTurn(header.sessionId, "second question")
      const compacted = yield* engine.compact(header.sessionId)
      expect(Option.isSome(compacted) && compacted.value.type === "context.compacted" && compacted.value.payload).toMatchObject({
        summary: answer,
        sections: { goal: "Answer the user's questions.", decisions: "", progress: "The user asked two questions.", nextStep: "Wait for the third.", openQuestions: "none" },
        changedFiles: [],
        fromSequence: 1,
        pieces: 1,
        trigger: "request",
        turns: ["turn_1", "turn_2"]
      })
      expect(Option.isNone(yield* engine.compact(header.sessionId))).toBe(true)
      yield* runTurn(header.sessionId, "third question")
      const sent = yield* Effect.flatMap(RecordedRequests, Ref.get)
      const summaryRequest = sent.find((r) => r.purpose === "compaction")
      expect(summaryRequest?.system).toContain("## Decisions and constraints")
      const third = sent.filter((r) => r.purpose === "turn").at(-1)
      expect(third?.messages).toEqual([
        {
          role: "user",
          content: [
            {
              _tag: "text",
              text:
                "Summary of the earlier conversation (older turns were compacted):\n\n## Goal\n\nAnswer the user's questions.\n\n" +
                "## Progress\n\nThe user asked two questions.\n\n## Next step\n\nWait for the third.\n\n## Open questions\n\nnone"
            },
            { _tag: "text", text: "third question" }
          ]
        }
      ])
      const log = yield* replayAll(header.sessionId)
      expect(eventsOf(log, "user.message")).toHaveLength(3)
    }).pipe(Effect.provide(setup({ responses: ["a", "b", "c"], summaries: [answer] }, { configDir })))
  })
})
