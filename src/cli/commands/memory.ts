import { Args, Command, Options } from "@effect/cli"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { createInterface } from "node:readline"
import { agentLayer } from "../../app/agent.js"
import { approveMemory, deleteMemory, rejectMemory } from "../../core/memory-review.js"
import { type Memory, type MemoryCandidate, MemoryStore } from "../../services/MemoryStore.js"
import { EventStore } from "../../services/EventStore.js"
import { CliError } from "../errors.js"
import { localAgentConfig } from "../local-host.js"
import { stdout, writeSync } from "../io.js"
import { memoryOneLine } from "../view/memory-text.js"
import { exchangeOf, formatExchange } from "../memory-evidence.js"
import { interactive } from "../turn-output.js"
import * as shared from "../options.js"

const where = { dataDir: shared.dataDir, store: shared.store }

const withAgent = (args: { readonly dataDir: Option.Option<string>; readonly store: "sqlite" | "jsonl" }) =>
  Effect.provide(
    agentLayer(localAgentConfig(args))
  )

const list = Command.make("list", { ...where, pending: Options.boolean("pending").pipe(Options.withDescription("List candidates waiting for review instead")) }, (args) =>
  Effect.gen(function* () {
    const store = yield* MemoryStore
    if (args.pending) {
      const candidates = yield* store.pending
      if (candidates.length === 0) return yield* stdout("no memory candidates waiting for review\n")
      return yield* stdout(candidates.map((c) => `${c.id}  (${c.scope}) ${memoryOneLine(c.text)}\n    from session ${c.sessionId}, events ${c.evidence.fromSequence}-${c.evidence.toSequence}\n`).join(""))
    }
    const memories = yield* store.all
    if (memories.length === 0) return yield* stdout("no memories yet\n")
    yield* stdout(
      memories
        .map((m) => `${m.id}  (${m.scope === "user" ? "all projects" : m.workspaceRoot ?? "project"}) ${memoryOneLine(m.text)}\n    approved ${m.approvedAt.slice(0, 19).replace("T", " ")} by ${m.approvedBy}\n`)
        .join("")
    )
  }).pipe(withAgent(args))
).pipe(Command.withDescription("List approved memories (or, with --pending, the candidates waiting for review)"))

/** The conversation a candidate came from, so the reviewer judges it with its evidence. */
const evidenceOf = (candidate: MemoryCandidate) =>
  Effect.flatMap(EventStore, (store) =>
    store.replay(candidate.sessionId, candidate.evidence.fromSequence - 1).pipe(
      Stream.takeWhile((event) => event.sequence <= candidate.evidence.toSequence),
      Stream.runCollect,
      Effect.map((events) => {
        const said = exchangeOf([...events])
        return said.length === 0 ? "    (no messages in that range)" : formatExchange(said, "    ")
      }),
      Effect.orElseSucceed(() => "    (the session's log is not available)")
    )
  )

/** Every line of a candidate's text indented, so none reads as the start of another entry. */
const indented = (text: string, prefix: string) =>
  text
    .split(/\r\n|\r|\n/)
    .map((line) => `${prefix}${line}`)
    .join("\n")

const describeCandidate = (candidate: MemoryCandidate) =>
  Effect.map(
    evidenceOf(candidate),
    (evidence) =>
      `\n${candidate.id} (${candidate.scope === "user" ? "for all projects" : `for ${candidate.workspaceRoot}`})\n${indented(candidate.text, "  ")}\n` +
      `  evidence: session ${candidate.sessionId}, events ${candidate.evidence.fromSequence}-${candidate.evidence.toSequence}\n${evidence}\n`
  )

/** An approval of a candidate whose text is already remembered settles it without a second memory: say so. */
const approved = (candidateId: string, memory: Memory, prefix: string) =>
  memory.candidateId === candidateId ? `${prefix}approved ${candidateId} as memory ${memory.id}\n` : `${prefix}${candidateId} is already remembered, as memory ${memory.id}\n`

const ask = (question: string) =>
  Effect.async<string>((resume) => {
    const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: false })
    writeSync(process.stderr, question)
    let answered = false
    rl.once("line", (line) => {
      answered = true
      rl.close()
      resume(Effect.succeed(line.trim().toLowerCase()))
    })
    rl.once("close", () => {
      if (!answered) resume(Effect.succeed(""))
    })
    return Effect.sync(() => rl.close())
  })

const review = Command.make(
  "review",
  {
    ...where,
    approve: Options.text("approve").pipe(Options.withPseudoName("ID"), Options.withDescription("Approve this candidate without asking"), Options.repeated),
    reject: Options.text("reject").pipe(Options.withPseudoName("ID"), Options.withDescription("Reject this candidate without asking"), Options.repeated)
  },
  (args) =>
    Effect.gen(function* () {
      const store = yield* MemoryStore
      for (const id of args.approve) yield* stdout(approved(id, yield* approveMemory(id, "cli"), ""))
      for (const id of args.reject) {
        yield* rejectMemory(id, "cli")
        yield* stdout(`rejected ${id}\n`)
      }
      if (args.approve.length > 0 || args.reject.length > 0) return
      const candidates = yield* store.pending
      if (candidates.length === 0) return yield* stdout("no memory candidates waiting for review\n")
      if (!interactive()) {
        // Nobody to ask: show what waits, and how to decide, rather than deciding nothing and exiting 0.
        for (const candidate of candidates) yield* stdout(yield* describeCandidate(candidate))
        const one = candidates[0]?.id ?? "ID"
        return yield* new CliError({
          message: `${candidates.length} memory candidate${candidates.length === 1 ? "" : "s"} waiting, and no terminal to ask on: decide with custom-agent memory review --approve ${one} (or --reject ${one})`
        })
      }
      for (const candidate of candidates) {
        yield* stdout(yield* describeCandidate(candidate))
        const answer = yield* ask("  [a] approve  [r] reject  [s] skip  [q] quit > ")
        if (answer === "a") {
          yield* stdout(approved(candidate.id, yield* approveMemory(candidate.id, "cli"), "  "))
        } else if (answer === "r") {
          yield* rejectMemory(candidate.id, "cli")
          yield* stdout("  rejected\n")
        } else if (answer === "q" || answer === "") {
          return
        }
      }
    }).pipe(withAgent(args))
).pipe(Command.withDescription("Approve or reject memory candidates, one by one with their evidence (or --approve/--reject ID)"))

const remove = Command.make("delete", { memoryId: Args.text({ name: "memory-id" }).pipe(Args.withDescription("The memory (see custom-agent memory list)")), ...where }, (args) =>
  Effect.gen(function* () {
    const memory = yield* deleteMemory(args.memoryId, "cli")
    yield* stdout(`deleted memory ${memory.id}: ${memoryOneLine(memory.text)}\n`)
  }).pipe(withAgent(args))
).pipe(Command.withDescription("Forget an approved memory (recorded in the log of the session it came from)"))

export const memoryCommand = Command.make("memory").pipe(
  Command.withDescription("Review, list and delete what the agent remembers across sessions"),
  Command.withSubcommands([list, review, remove])
)
