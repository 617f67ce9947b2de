import { afterAll, describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Either, Layer, Ref, Stream } from "effect"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { historyTokens, taskSection } from "../../src/core/context.js"
import { makeConversation } from "../../src/core/conversation.js"
import { rebuildRequests } from "../../src/core/replay-requests.js"
import { SessionEngine } from "../../src/core/SessionEngine.js"
import type { AgentEvent } from "../../src/domain/events.js"
import type { ModelRequest } from "../../src/domain/model.js"
import type { TodoItem } from "../../src/domain/tasks.js"
import { estimatePromptTokens } from "../../src/domain/tokens.js"
import * as ContextSources from "../../src/layers/context/builder.js"
import * as MemoryFile from "../../src/layers/memory/file-store.js"
import type { Script } from "../../src/layers/model/scripted.js"
import { sandboxOff } from "../../src/layers/sandbox/off.js"
import * as SkillFolders from "../../src/layers/skills/folders.js"
import { localTools } from "../../src/layers/tools/local.js"
import { todoWriteTool } from "../../src/layers/tools/todo-write.js"
import * as Scripted from "../../src/layers/model/scripted.js"
import { checkContextWindow } from "../../src/layers/model/preflight.js"
import { ModelGateway } from "../../src/services/ModelGateway.js"
import { engineLayer, replayAll } from "../support/engine-harness.js"
import { eventsOf } from "../support/events.js"
import { RecordedRequests, recordingScripted } from "../support/recording-model.js"
import { storeCases } from "../support/store-cases.js"
import { makeTemp } from "../support/temp-dirs.js"

const temps = makeTemp()
afterAll(temps.cleanup)
const temp = temps.dir

const WINDOW = 6_000
const MAX_OUTPUT = 500
const TURNS = 45

/** Turn i's task list: two parts done, this one in progress, three waiting; one task's text has odd characters on purpose. */
const todosAt = (i: number): ReadonlyArray<TodoItem> => [
  { content: "Keep `weird` <chars> & \"quotes\" — exactly, ünïcode too", status: "in_progress" },
  ...Array.from({ length: 6 }, (_, j) => {
    const k = i - 2 + j
    return { content: `Write part ${k} of the report`, status: k < i ? "completed" : k === i ? "in_progress" : "pending" } as const
  })
]

const summaryAnswer = (k: number) =>
  `## Goal\nWrite the report in ${TURNS} parts.\n\n## Decisions and constraints\nOne file per part; tabs, as AGENTS.md says.\n\n` +
  `## Progress\nSummary ${k}: parts written so far are in their files.\n\n## Next step\nWrite the next part.\n\n## Open questions\nnone`

/** Each turn: update the task list and write the part's file, then answer. */
const longScript = (turns: number): Script => ({
  contextWindow: WINDOW,
  maxOutputTokens: MAX_OUTPUT,
  summaries: Array.from({ length: 200 }, (_, k) => summaryAnswer(k)),
  responses: Array.from({ length: turns }, (_, i) => [
    {
      chunks: [
        { toolCall: { name: "todo_write", input: { todos: todosAt(i) }, id: `todo_${i}` } },
        { toolCall: { name: "write_file", input: { path: `parts/part-${i}.md`, content: `# Part ${i}\n\n${"report text ".repeat(100)}` }, id: `write_${i}` } }
      ]
    },
    `part ${i} written`
  ]).flat()
})

const prompt = (i: number) => `Part ${i}: ${"background material for the report ".repeat(70)}`

const setup = (script: Script, configDir: string, store = storeCases[0], maxSteps = 10) => {
  const memoryFile = join(temp("long-mem-"), "memory.json")
  const recording = recordingScripted(script)
  const context = ContextSources.layer({ configDir }).pipe(
    Layer.provide(Layer.mergeAll(SkillFolders.layer({ configDir }), MemoryFile.layer(memoryFile)))
  )
  return engineLayer((store ?? storeCases[0])?.fresh() ?? Layer.die("no store"), undefined, {
    model: recording,
    context,
    memoryFile,
    tools: [...localTools(sandboxOff), todoWriteTool],
    engine: { maxSteps, compactionThreshold: 0.8, toolResultChars: 30_000 }
  }).pipe(Layer.provideMerge(recording))
}

const runTurn = (sessionId: string, content: string) =>
  Effect.flatMap(SessionEngine, (engine) => Stream.runCollect(engine.runTurn({ sessionId, content, permissionMode: "accept-edits" }))).pipe(
    Effect.map(Chunk.toArray)
  )

/** The task list in force at each event: the last `task.updated` before it. */
const listBefore = (log: ReadonlyArray<AgentEvent>, sequence: number) =>
  eventsOf(log, "task.updated").filter((e) => e.sequence < sequence).at(-1)

/** What the files tool calls changed through a sequence, read straight from the log. */
const editedThrough = (log: ReadonlyArray<AgentEvent>, sequence: number) =>
  [...new Set(eventsOf(log, "tool.completed").flatMap((e) => (e.sequence <= sequence && !e.payload.isError && e.payload.data?._tag === "edit" ? [e.payload.data.path] : [])))].sort()

const instructionFiles = () => {
  const configDir = temp("long-config-")
  const workspace = temp("long-ws-")
  mkdirSync(join(workspace, ".git"))
  writeFileSync(join(configDir, "AGENTS.md"), "USER RULES: answer in English.")
  writeFileSync(join(workspace, "AGENTS.md"), "PROJECT RULES: indent with tabs.")
  return { configDir, workspace }
}

describe("a long task survives compaction", () => {
  for (const store of storeCases) {
    it.live(`[${store.name}] history ten times the window: every request carries the task list verbatim, the instruction files and the structured summary; changed files match the log; replay rebuilds the same requests`, () => {
      const { configDir, workspace } = instructionFiles()
      return Effect.gen(function* () {
        const engine = yield* SessionEngine
        const { header } = yield* engine.createSession({ cwd: workspace, client: "test" })
        let editedAt = 0
        for (let i = 0; i < TURNS; i++) {
          if (i === Math.floor(TURNS / 2)) {
            // Instruction files are read again at each turn, after compactions too.
            writeFileSync(join(workspace, "AGENTS.md"), "PROJECT RULES: indent with spaces from now on.")
            editedAt = (yield* replayAll(header.sessionId)).length
          }
          const events = yield* runTurn(header.sessionId, prompt(i))
          expect(eventsOf(events, "turn.completed")[0]?.payload).toEqual({ stopReason: "final" })
        }
        const log = yield* replayAll(header.sessionId)
        expect(eventsOf(log, "context.compacted").filter((c) => c.sequence < editedAt).length).toBeGreaterThan(1)

        // The history, had nothing been compacted, is more than ten windows.
        const verbatim = makeConversation()
        for (const event of log) if (event.type !== "context.compacted") verbatim.apply(event)
        expect(historyTokens(verbatim.snapshot())).toBeGreaterThan(10 * WINDOW)

        const compactions = eventsOf(log, "context.compacted")
        expect(compactions.length).toBeGreaterThanOrEqual(3)
        for (const c of compactions) {
          expect(c.payload.trigger).toBe("budget")
          expect(c.payload.sections?.goal).toBe(`Write the report in ${TURNS} parts.`)
          expect(c.payload.sections?.nextStep).toBe("Write the next part.")
          expect(c.payload.changedFiles).toEqual(editedThrough(log, c.payload.throughSequence))
          expect(c.payload.changedFiles?.length).toBeGreaterThan(0)
        }

        const sent = yield* Effect.flatMap(RecordedRequests, Ref.get)
        const turnRequests = sent.filter((r) => r.purpose === "turn")
        const built = eventsOf(log, "context.built")
        expect(turnRequests).toHaveLength(built.length)
        for (const request of sent) expect(estimatePromptTokens(request) + MAX_OUTPUT).toBeLessThanOrEqual(WINDOW)
        let sawList = 0
        for (const [i, request] of turnRequests.entries()) {
          const at = built[i]
          if (at === undefined) throw new Error("a request without its context.built")
          expect(request.system).toContain("USER RULES: answer in English.")
          expect(request.system).toContain(at.sequence < editedAt ? "PROJECT RULES: indent with tabs." : "PROJECT RULES: indent with spaces from now on.")
          const list = listBefore(log, at.sequence)
          if (list !== undefined) {
            sawList++
            expect(request.system.endsWith(taskSection(list.payload.todos))).toBe(true)
            for (const todo of list.payload.todos) expect(request.system).toContain(todo.content)
            expect(at.payload.tasks?.sequence).toBe(list.sequence)
          }
          const summary = compactions.filter((c) => c.sequence < at.sequence).at(-1)
          if (summary !== undefined) {
            const opening = request.messages[0]?.content[0]
            const text = opening?._tag === "text" ? opening.text : ""
            expect(text.startsWith("Summary of the earlier conversation")).toBe(true)
            expect(text).toContain(`## Goal\n\nWrite the report in ${TURNS} parts.`)
            expect(text).toContain("## Next step\n\nWrite the next part.")
            for (const path of summary.payload.changedFiles ?? []) expect(text).toContain(`- ${path}`)
            // The task list is never summarized: the summary message does not hold it, the system prompt does.
            expect(text).not.toContain("Current task list")
          }
        }
        expect(sawList).toBe(turnRequests.length - 1)

        // The workspace holds what the log says was written.
        expect(readFileSync(join(workspace, "parts", `part-${TURNS - 1}.md`), "utf8")).toContain(`# Part ${TURNS - 1}`)

        // The log alone rebuilds every request the model was sent.
        const rebuilt = Either.getOrThrow(rebuildRequests(log))
        expect(rebuilt.map((r) => ({ system: r.system, messages: r.messages }))).toEqual(turnRequests.map((r) => ({ system: r.system, messages: r.messages })))
      }).pipe(Effect.provide(setup(longScript(TURNS), configDir, store)))
    })
  }

  it.live("a compaction request that would not fit the window is sent in pieces, each fitting; the turn goes on", () => {
    const { configDir, workspace } = instructionFiles()
    const huge = `Read this first: ${"a long specification paragraph ".repeat(650)}`
    return Effect.gen(function* () {
      const engine = yield* SessionEngine
      const { header } = yield* engine.createSession({ cwd: workspace, client: "test" })
      yield* runTurn(header.sessionId, huge)
      const second = yield* runTurn(header.sessionId, `Now the next part. ${"more detail ".repeat(150)}`)
      expect(eventsOf(second, "turn.completed")[0]?.payload.stopReason).toBe("final")
      const compacted = eventsOf(second, "context.compacted")[0]
      expect(compacted?.payload.pieces).toBeGreaterThan(1)
      const sent = yield* Effect.flatMap(RecordedRequests, Ref.get)
      const summaries = sent.filter((r) => r.purpose === "compaction")
      expect(summaries).toHaveLength(compacted?.payload.pieces ?? 0)
      // As one request the transcript would not have fit; each piece does.
      expect(estimatePromptTokens({ ...summaryShape(summaries[0]), messages: [{ role: "user", content: [{ _tag: "text", text: huge }] }] }) + MAX_OUTPUT).toBeGreaterThan(WINDOW)
      for (const request of summaries) expect(estimatePromptTokens(request) + MAX_OUTPUT).toBeLessThanOrEqual(WINDOW)
      // Each later piece folds the summary so far.
      expect(textOf(summaries[1])).toContain("Summary so far:")
      const last = sent.filter((r) => r.purpose === "turn").at(-1)
      expect(last?.messages[0]?.content[0]).toMatchObject({ _tag: "text", text: expect.stringContaining("## Goal") })
    }).pipe(
      Effect.provide(
        setup({ contextWindow: WINDOW, maxOutputTokens: MAX_OUTPUT, responses: ["got it", "done"], summaries: [summaryAnswer(0), summaryAnswer(1), summaryAnswer(2), summaryAnswer(3)] }, configDir)
      )
    )
  })
})

describe("a session resumed by a new process", () => {
  for (const store of storeCases.filter((c) => c.name !== "memory")) {
    it.live(`[${store.name}] keeps its compaction and its task list: the next request starts from the summary, not the whole history`, () => {
      const { configDir, workspace } = instructionFiles()
      const turns = 6
      return Effect.gen(function* () {
        const { reopen } = yield* store.location
        const layerOver = (script: Script) => {
          const memoryFile = join(temp("long-mem-"), "memory.json")
          const recording = recordingScripted(script)
          const context = ContextSources.layer({ configDir }).pipe(Layer.provide(Layer.mergeAll(SkillFolders.layer({ configDir }), MemoryFile.layer(memoryFile))))
          return engineLayer(reopen(), undefined, { model: recording, context, memoryFile, tools: [...localTools(sandboxOff), todoWriteTool] }).pipe(Layer.provideMerge(recording))
        }
        const sessionId = yield* Effect.gen(function* () {
          const engine = yield* SessionEngine
          const { header } = yield* engine.createSession({ cwd: workspace, client: "test" })
          for (let i = 0; i < turns; i++) yield* runTurn(header.sessionId, prompt(i))
          return header.sessionId
        }).pipe(Effect.provide(layerOver(longScript(turns))))
        const sent = yield* Effect.gen(function* () {
          const events = yield* runTurn(sessionId, "Where are we?")
          expect(eventsOf(events, "turn.completed")[0]?.payload).toEqual({ stopReason: "final" })
          return yield* Effect.flatMap(RecordedRequests, Ref.get)
        }).pipe(Effect.provide(layerOver({ contextWindow: WINDOW, maxOutputTokens: MAX_OUTPUT, responses: ["Writing part 6 next."] })))
        const log = yield* replayAll(sessionId).pipe(Effect.provide(reopen()))
        const last = eventsOf(log, "context.compacted").at(-1)
        const request = sent.find((r) => r.purpose === "turn")
        const opening = request?.messages[0]?.content[0]
        expect(opening?._tag === "text" && opening.text).toContain(`## Goal\n\nWrite the report in ${TURNS} parts.`)
        expect(eventsOf(log, "context.built").at(-1)?.payload.compactedThrough).toBe(last?.payload.throughSequence)
        expect(request?.system.endsWith(taskSection(todosAt(turns - 1)))).toBe(true)
        expect(estimatePromptTokens(request ?? { sessionId, system: "", messages: [], tools: [] }) + MAX_OUTPUT).toBeLessThanOrEqual(WINDOW)
      }).pipe(Effect.scoped)
    })
  }
})

describe("a single turn longer than the window", () => {
  const STEPS = 40
  const stepTodos = (i: number): ReadonlyArray<TodoItem> => [
    { content: `Write files 0 to ${STEPS - 1}`, status: "in_progress" },
    { content: `Latest written: file ${i}`, status: "completed" }
  ]
  const script: Script = {
    contextWindow: WINDOW,
    maxOutputTokens: MAX_OUTPUT,
    summaries: Array.from({ length: 100 }, (_, k) => summaryAnswer(k)),
    responses: [
      ...Array.from({ length: STEPS }, (_, i) => ({
        chunks: [
          { text: `Step ${i}.` },
          ...(i % 5 === 0 ? [{ toolCall: { name: "todo_write", input: { todos: stepTodos(i) }, id: `todo_${i}` } }] : []),
          { toolCall: { name: "write_file", input: { path: `out/file-${i}.txt`, content: `${i} ${"payload ".repeat(200)}` }, id: `write_${i}` } }
        ]
      })),
      "All files written."
    ]
  }

  it.live("its finished steps are compacted as it runs (the last step kept verbatim), every request fits, and the turn ends normally", () => {
    const { configDir, workspace } = instructionFiles()
    return Effect.gen(function* () {
      const engine = yield* SessionEngine
      const { header } = yield* engine.createSession({ cwd: workspace, client: "test" })
      const events = yield* runTurn(header.sessionId, "Write the forty files.")
      expect(eventsOf(events, "turn.completed")[0]?.payload).toEqual({ stopReason: "final" })
      const log = yield* replayAll(header.sessionId)
      const compactions = eventsOf(log, "context.compacted")
      expect(compactions.length).toBeGreaterThanOrEqual(3)
      const turnId = eventsOf(log, "turn.started")[0]?.turnId
      for (const c of compactions) {
        expect(c.payload.turns).toEqual([turnId])
        expect(c.payload.changedFiles).toEqual(editedThrough(log, c.payload.throughSequence))
      }
      const sent = yield* Effect.flatMap(RecordedRequests, Ref.get)
      for (const request of sent) expect(estimatePromptTokens(request) + MAX_OUTPUT).toBeLessThanOrEqual(WINDOW)
      const turnRequests = sent.filter((r) => r.purpose === "turn")
      expect(turnRequests).toHaveLength(STEPS + 1)
      // After a compaction, the request still pairs every tool call it shows with its result, and the last step's result is there verbatim.
      for (const request of turnRequests) {
        const calls = request.messages.flatMap((m) => m.content.flatMap((p) => (p._tag === "tool_call" ? [p.toolCallId] : [])))
        const results = request.messages.flatMap((m) => m.content.flatMap((p) => (p._tag === "tool_result" ? [p.toolCallId] : [])))
        expect(results).toEqual(calls)
      }
      const last = turnRequests.at(-1)
      expect(last?.messages.flatMap((m) => m.content.flatMap((p) => (p._tag === "tool_result" ? [p.toolCallId] : [])))).toContain(`write_${STEPS - 1}`)
      expect(last?.system.endsWith(taskSection(stepTodos(STEPS - 1 - ((STEPS - 1) % 5))))).toBe(true)
      const rebuilt = Either.getOrThrow(rebuildRequests(log))
      expect(rebuilt.map((r) => ({ system: r.system, messages: r.messages }))).toEqual(turnRequests.map((r) => ({ system: r.system, messages: r.messages })))
    }).pipe(Effect.provide(setup(script, configDir, storeCases[0], 100)))
  })
})

describe("an adapter that counts more tokens than the engine's estimate", () => {
  it.live("a summary request it refuses as too long is split in two and sent again; the turn goes on", () => {
    const { configDir, workspace } = instructionFiles()
    const refused: Array<number> = []
    // A denser tokenizer than the engine's 3 characters per token: the engine's pieces look too big to this adapter.
    const strict = Layer.effect(
      ModelGateway,
      Effect.map(Scripted.make({ contextWindow: WINDOW, maxOutputTokens: MAX_OUTPUT, responses: ["got it", "done"], summaries: Array.from({ length: 20 }, (_, k) => summaryAnswer(k)) }), (inner) =>
        ModelGateway.of({
          info: inner.info,
          stream: (request) =>
            request.purpose === "compaction"
              ? Stream.unwrap(
                  checkContextWindow({ request, info: inner.info, reservedOutputTokens: MAX_OUTPUT, charsPerToken: 1.5 }).pipe(
                    Effect.tapError(() => Effect.sync(() => refused.push(estimatePromptTokens(request)))),
                    Effect.as(inner.stream(request))
                  )
                )
              : inner.stream(request)
        })
      )
    )
    const memoryFile = join(temp("long-mem-"), "memory.json")
    const context = ContextSources.layer({ configDir }).pipe(Layer.provide(Layer.mergeAll(SkillFolders.layer({ configDir }), MemoryFile.layer(memoryFile))))
    return Effect.gen(function* () {
      const engine = yield* SessionEngine
      const { header } = yield* engine.createSession({ cwd: workspace, client: "test" })
      yield* runTurn(header.sessionId, `Read this first: ${"a long specification paragraph ".repeat(450)}`)
      const second = yield* runTurn(header.sessionId, `Now the next part. ${"more detail ".repeat(150)}`)
      expect(eventsOf(second, "turn.completed")[0]?.payload).toEqual({ stopReason: "final" })
      expect(refused.length).toBeGreaterThan(0)
      const compacted = eventsOf(second, "context.compacted")[0]
      expect(compacted?.payload.pieces).toBeGreaterThan(1)
      expect(compacted?.payload.sections?.goal).toBe(`Write the report in ${TURNS} parts.`)
    }).pipe(Effect.provide(engineLayer(storeCases[0]?.fresh() ?? Layer.die("no store"), undefined, { model: strict, context, memoryFile })))
  })
})

describe("un-compact: a rewind past a compaction", () => {
  const verbatimTexts = (request: ModelRequest | undefined) =>
    (request?.messages ?? []).flatMap((m) => m.content.flatMap((p) => (p._tag === "text" ? [p.text.trim()] : [])))

  it.live("rewinding to just before a compaction gives requests with the verbatim history again; the log rebuilds them", () => {
    const { configDir, workspace } = instructionFiles()
    return Effect.gen(function* () {
      const engine = yield* SessionEngine
      const { header } = yield* engine.createSession({ cwd: workspace, client: "test" })
      for (const content of ["first question", "second question", "third question"]) yield* runTurn(header.sessionId, content)
      const compacted = yield* engine.compact(header.sessionId)
      const compaction = compacted._tag === "Some" ? compacted.value : undefined
      yield* runTurn(header.sessionId, "fourth question")
      const sent = yield* Effect.flatMap(RecordedRequests, Ref.get)
      expect(verbatimTexts(sent.at(-1))[0]).toContain("Summary of the earlier conversation")

      const result = yield* engine.rewind(header.sessionId, { to: { _tag: "Sequence", sequence: (compaction?.sequence ?? 1) - 1 }, what: "conversation", by: "test" })
      expect(result.conversationTo).toBe((compaction?.sequence ?? 1) - 1)
      yield* runTurn(header.sessionId, "fifth question")
      const after = yield* Effect.flatMap(RecordedRequests, Ref.get)
      expect(verbatimTexts(after.at(-1))).toEqual(["first question", "a", "second question", "b", "third question", "c", "fifth question"])
      const log = yield* replayAll(header.sessionId)
      expect(eventsOf(log, "conversation.rewound").map((e) => e.payload.toSequence)).toEqual([(compaction?.sequence ?? 1) - 1])
      const rebuilt = Either.getOrThrow(rebuildRequests(log))
      expect(rebuilt.map((r) => r.messages)).toEqual(after.filter((r) => r.purpose === "turn").map((r) => r.messages))
    }).pipe(Effect.provide(setup({ responses: ["a", "b", "c", "d", "e"], summaries: [summaryAnswer(0)] }, configDir)))
  })

  it.live("rewinding before the turn whose request compacted automatically brings back the verbatim turns before it", () => {
    const { configDir, workspace } = instructionFiles()
    return Effect.gen(function* () {
      const engine = yield* SessionEngine
      const { header } = yield* engine.createSession({ cwd: workspace, client: "test" })
      for (let i = 0; i < 6; i++) yield* runTurn(header.sessionId, prompt(i))
      const log = yield* replayAll(header.sessionId)
      const first = eventsOf(log, "context.compacted")[0]
      expect(first?.payload.trigger).toBe("budget")
      const turnOf = eventsOf(log, "turn.started").filter((e) => e.sequence < (first?.sequence ?? 0)).length
      yield* engine.rewind(header.sessionId, { to: { _tag: "Turn", turn: turnOf }, what: "conversation", by: "test" })
      yield* runTurn(header.sessionId, "and now?")
      const sent = yield* Effect.flatMap(RecordedRequests, Ref.get)
      const texts = verbatimTexts(sent.at(-1))
      expect(texts.some((t) => t.startsWith("Summary of the earlier conversation"))).toBe(false)
      expect(texts).toEqual([...Array.from({ length: turnOf - 1 }, (_, i) => [prompt(i).trim(), `part ${i} written`]).flat(), "and now?"])
      // The task list the model sees is the one in force at the rewind's target.
      const before = listBefore(log, eventsOf(log, "turn.started")[turnOf - 1]?.sequence ?? 0)
      expect(sent.at(-1)?.system.endsWith(taskSection(before?.payload.todos))).toBe(true)
      const after = yield* replayAll(header.sessionId)
      expect(Either.getOrThrow(rebuildRequests(after)).at(-1)?.messages).toEqual(sent.at(-1)?.messages)
    }).pipe(Effect.provide(setup({ ...longScript(6), responses: [...(longScript(6).responses ?? []), "back"] }, configDir)))
  })
})

const summaryShape = (request: ModelRequest | undefined): ModelRequest => request ?? { sessionId: "", system: "", messages: [], tools: [] }

const textOf = (request: ModelRequest | undefined) =>
  (request?.messages ?? []).flatMap((m) => m.content.flatMap((p) => (p._tag === "text" ? [p.text] : []))).join("\n")
