import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Stream from "effect/Stream"
import { writeFileSync } from "node:fs"
import { resolve } from "node:path"
import type { AgentEvent } from "../../domain/events.js"
import type { SessionListItem } from "../../domain/host.js"
import { type PermissionMode, describeCover } from "../../domain/permissions.js"
import { relativeTime } from "../../domain/relative-time.js"
import { RewindDrift, type RewindResult, type RewindWhat } from "../../domain/rewind.js"
import { formatCost } from "../../domain/spend.js"
import { taskListLines } from "../../domain/tasks.js"
import { parseModelSpec } from "../../layers/model/model-spec.js"
import { emptyOverview, foldOverview, makeContextView } from "../context-view.js"
import { modelIdOf } from "../model-notice.js"
import { makeRenderer } from "../render.js"
import { jsonText } from "../terminal-text.js"
import type { Choice } from "./choice-list.js"
import { withSubagents } from "../export-tree.js"
import { memoryListing } from "./memory-listing.js"
import { hasTag, type SessionClient } from "./session-client.js"
import type { SlashCommandSpec } from "./slash.js"
import { formatTokens } from "../view/units.js"
import type { Timeline, Tone } from "./timeline.js"

/** What a slash command may do in the session: the only way the commands reach the screen and the host. */
export interface SessionActions {
  readonly client: SessionClient
  /** Where the interactive session was started: a new session's workspace, where /export writes. */
  readonly cwd: string
  /** The open session's own workspace (another folder when one from elsewhere was resumed): its rules, answers, memories, agents and hooks. */
  readonly workspace: () => string
  readonly sessionId: () => string | undefined
  readonly timeline: () => Timeline
  readonly note: (text: string, tone?: Tone) => void
  /** A list to pick from; undefined when left with Esc. */
  readonly choose: <A>(title: string, choices: ReadonlyArray<Choice<A>>, filterable: boolean) => Effect.Effect<A | undefined>
  /** Shows this session (a new one for undefined) from here on. */
  readonly open: (sessionId: string | undefined) => Effect.Effect<void, unknown>
  /** The session's model (or, before one exists, the one it will be created with). */
  readonly model: () => string | undefined
  /** Makes `id` the session's model now (`session.model_changed`); before one exists, the new session's. */
  readonly setModel: (id: string) => Effect.Effect<void, unknown>
  readonly mode: () => PermissionMode
  readonly setMode: (mode: PermissionMode) => Effect.Effect<void, unknown>
  readonly commands: () => ReadonlyArray<SlashCommandSpec>
  /** The workspace's agents and hooks, as `agents list` and `hooks list` print them (text). */
  readonly listings: {
    readonly agents: (workspace: string) => Effect.Effect<string, unknown>
    readonly hooks: (workspace: string) => Effect.Effect<string, unknown>
  }
  readonly quit: () => void
}

const MODES: ReadonlyArray<PermissionMode> = ["default", "plan", "accept-edits", "bypass"]

const KEYS = [
  "enter         send (while a turn runs: queue it for the next turn)",
  "alt+enter     while a turn runs: send to steer it at its next step (ctrl+s too)",
  "shift+enter   a new line (or \\ then enter); a large paste stays one message",
  "@path         attach a file of the workspace (tab completes)",
  "esc           cancel the running turn",
  "shift+tab     next permission mode (default, accept-edits, plan)",
  "ctrl+o        the last tool call's whole detail (diff, output)",
  "↑ / ↓         earlier messages",
  "ctrl+x        leave, the running turn going on in the local host (custom-agent attach ID follows it)",
  "ctrl+c        clear the editor; twice to quit (a running turn is cancelled)"
]

/** The session first needed: a command that acts on one says so when there is none yet. */
const withSession = (actions: SessionActions, what: string, use: (sessionId: string) => Effect.Effect<void, unknown>) => {
  const id = actions.sessionId()
  return id === undefined ? Effect.sync(() => actions.note(`${what} needs a session: send a message first, or /resume one`, "warn")) : use(id)
}

const describeRestore = (result: RewindResult, redo: boolean): string => {
  const lines: Array<string> = []
  const prefix = redo ? "redo: " : ""
  if (result.checkpointSequence !== undefined) {
    const paths = [...new Set([...result.restoredPaths, ...result.drift])]
    lines.push(paths.length === 0 ? `${prefix}the files already match checkpoint #${result.checkpointSequence}` : `${prefix}restored ${paths.length} file(s) from checkpoint #${result.checkpointSequence}: ${paths.join(", ")}`)
  }
  if (result.conversationTo !== undefined) lines.push(`${prefix}conversation rewound to event #${result.conversationTo}: the next turn follows on from it`)
  return lines.length === 0 ? `${prefix}nothing to restore` : lines.join("\n")
}

/** A restore that files changed outside the agent stopped: the person sees them and decides whether to overwrite. */
const withDriftQuestion = (actions: SessionActions, attempt: (force: boolean) => Effect.Effect<RewindResult, unknown>) =>
  Effect.catchIf(
    attempt(false),
    (error): error is RewindDrift => error instanceof RewindDrift,
    (drift) =>
      Effect.gen(function* () {
        const paths = drift.paths
        const overwrite = yield* actions.choose(
          `These files changed since the session's last checkpoint by something other than the agent: ${paths.join(", ")}. Overwrite them?`,
          [
            { label: "no, change nothing", value: false },
            { label: "yes, overwrite them", value: true }
          ],
          false
        )
        if (overwrite !== true) return yield* Effect.fail(new Error("nothing was changed"))
        return yield* attempt(true)
      })
  )

const help = (actions: SessionActions) =>
  Effect.sync(() => {
    const line = (command: SlashCommandSpec) => `/${command.name}${command.argumentHint === undefined ? "" : ` ${command.argumentHint}`}  ${command.description}`
    const own = actions.commands().filter((command) => command.source === undefined)
    const files = actions.commands().filter((command) => command.source !== undefined)
    const fileLines = files.length === 0 ? [] : ["", "the workspace's and your command files (sent as typed, expanded by the agent):", ...files.map((command) => `${line(command)} (${command.source ?? ""})`)]
    actions.timeline().detail("keys and commands", [...KEYS, "", ...own.map(line), ...fileLines].join("\n"))
  })

const model = (actions: SessionActions, args: string) =>
  Effect.suspend(() => {
    if (args === "") {
      return Effect.sync(() => actions.note(`model: ${actions.model() ?? "the default"} · /model <id> to choose another: scripted, anthropic, anthropic/<id>, openai/<id>`))
    }
    const parsed = parseModelSpec(args)
    if (Either.isLeft(parsed)) return Effect.sync(() => actions.note(`/model: ${parsed.left.message}`, "warn"))
    const id = modelIdOf(args)
    if (id === actions.model()) return Effect.sync(() => actions.note(`model: ${id} already`))
    // The change shows as its event (`model: … (set by cli)`); a running turn keeps its own to the end.
    const running = actions.sessionId() !== undefined && actions.timeline().state.running
    return Effect.zipRight(actions.setModel(id), Effect.sync(() => (running ? actions.note("the running turn ends on the model it started with; the next one asks this one") : undefined)))
  })

const mode = (actions: SessionActions, args: string) => {
  if (args === "") return Effect.sync(() => actions.note(`mode: ${actions.mode()} · /mode ${MODES.join("|")} (shift+tab cycles default, accept-edits, plan)`))
  const chosen = MODES.find((candidate) => candidate === args.trim())
  if (chosen === undefined) return Effect.sync(() => actions.note(`/mode takes one of ${MODES.join(", ")}, got ${args}`, "warn"))
  return actions.setMode(chosen)
}

const resume = (actions: SessionActions) =>
  Effect.gen(function* () {
    const items = (yield* actions.client.listSessions).filter((item) => !item.archived && item.parentSessionId === undefined && item.sessionId !== actions.sessionId())
    const here = items.filter((item) => item.cwd !== undefined && resolve(item.cwd) === resolve(actions.cwd))
    const elsewhere = items.filter((item) => !here.includes(item))
    if (items.length === 0) return actions.note("no other session to resume", "warn")
    const now = Date.now()
    const when = (item: SessionListItem) => `${relativeTime(item.updatedAt, now)} · ${item.sessionId} · ${item.status}`
    // This workspace's first; then the others, each marked with the folder it works in (opening one asks first).
    const choices: Array<Choice<string>> = [
      ...here.map((item) => ({ label: item.title ?? "(untitled)", detail: when(item), value: item.sessionId })),
      ...elsewhere.map((item) => ({ label: `${item.title ?? "(untitled)"}  [in ${item.cwd ?? "an unknown folder"}]`, detail: when(item), value: item.sessionId }))
    ]
    const chosen = yield* actions.choose(`Resume a session: ${here.length} of this workspace first, then ${elsewhere.length} of others (marked with their folder)`, choices, true)
    if (chosen !== undefined) yield* actions.open(chosen)
  })

const rewind = (actions: SessionActions) =>
  withSession(actions, "/rewind", (id) =>
    Effect.gen(function* () {
      const turns = actions.timeline().state.turns
      if (turns.length === 0) return actions.note("no turn to rewind to yet", "warn")
      const turn = yield* actions.choose(
        "Rewind to before which turn?",
        [...turns].reverse().map((t) => ({ label: `turn ${t.number}: ${t.preview}`, detail: `#${t.sequence}`, value: t.number })),
        true
      )
      if (turn === undefined) return
      const what = yield* actions.choose<RewindWhat>(
        `Restore what, to before turn ${turn}?`,
        [
          { label: "both: the files and the conversation", value: "both" },
          { label: "the files only", value: "files" },
          { label: "the conversation only", value: "conversation" }
        ],
        false
      )
      if (what === undefined) return
      const result = yield* withDriftQuestion(actions, (force) => actions.client.rewind(id, { to: { _tag: "Turn", turn }, what, force, by: "cli" }))
      actions.note(describeRestore(result, false), "info")
    })
  )

const redo = (actions: SessionActions) =>
  withSession(actions, "/redo", (id) =>
    Effect.map(withDriftQuestion(actions, (force) => actions.client.redo(id, { force, by: "cli" })), (result) => actions.note(describeRestore(result, true), "info"))
  )

const fork = (actions: SessionActions) =>
  withSession(actions, "/fork", (id) =>
    Effect.gen(function* () {
      const view = yield* actions.client.fork(id)
      yield* actions.open(view.sessionId)
      actions.note(`forked ${id}: you are now in ${view.sessionId} (the original stays as it was; /resume goes back)`, "info")
    })
  )

const compact = (actions: SessionActions) =>
  withSession(actions, "/compact", (id) =>
    // A compaction shows as its event (`context.compacted`); only its absence needs saying.
    Effect.map(actions.client.compact(id), (result) => (result.compacted ? undefined : actions.note("nothing new to compact", "info")))
  )

const collect = (stream: Stream.Stream<AgentEvent, unknown>) => Effect.map(Stream.runCollect(stream), Chunk.toReadonlyArray)

const context = (actions: SessionActions) =>
  withSession(actions, "/context", (id) =>
    Effect.gen(function* () {
      const events = yield* collect(actions.client.exportSession(id))
      const overview = events.reduce(foldOverview, emptyOverview())
      const renderer = makeRenderer({ color: false, live: false, sequences: true })
      const view = makeContextView(overview, renderer.render, false)
      const text = [...events.flatMap((event) => view.view(event)), ...view.end()].map((segment) => segment.text.toString()).join("")
      actions.timeline().detail("context", text)
    })
  )

const cost = (actions: SessionActions) =>
  Effect.sync(() => {
    const { turnSpend, sessionSpend } = actions.timeline().state
    const line = (label: string, spend: typeof turnSpend) =>
      spend.requests === 0 ? `${label}: no model request yet` : `${label}: ${formatTokens(spend.tokens)} tokens, ${spend.requests} request(s), cost ${formatCost(spend)}`
    actions.note(`${line("last turn", turnSpend)}\n${line("session", sessionSpend)}`, "info")
  })

const tasks = (actions: SessionActions) =>
  Effect.sync(() => {
    const todos = actions.timeline().state.tasks
    if (todos.length === 0) return actions.note("no task list")
    actions.timeline().detail("tasks", taskListLines(todos).join("\n"))
  })

const permissions = (actions: SessionActions, args: string) =>
  Effect.gen(function* () {
    const [verb, id] = args.split(/\s+/)
    if (verb === "revoke") {
      if (id === undefined || id === "") return actions.note("/permissions revoke takes the answer's id (/permissions lists them)", "warn")
      const revoked = yield* actions.client.revokeAnswer(id)
      return actions.note(`revoked ${revoked.id}: ${revoked.decision} ${describeCover(revoked, revoked.decision)}`, "info")
    }
    if (args !== "") return actions.note("/permissions lists the remembered answers; /permissions revoke ID forgets one", "warn")
    const answers = yield* actions.client.rememberedAnswers(actions.workspace())
    if (answers.length === 0) return actions.note("no remembered answers for this workspace")
    actions.timeline().detail("remembered answers (/permissions revoke ID)", answers.map((a) => `${a.id}  ${a.decision}  ${describeCover(a, a.decision)}`).join("\n"))
  })

const memory = (actions: SessionActions, args: string) =>
  Effect.gen(function* () {
    const [verb, id] = args.split(/\s+/)
    if (verb === "approve" || verb === "reject") {
      if (id === undefined || id === "") return actions.note(`/memory ${verb} takes a candidate's id (/memory lists them)`, "warn")
      yield* actions.client.reviewMemory(id, verb)
      return actions.note(`${verb === "approve" ? "approved" : "rejected"} ${id}`, "info")
    }
    if (args !== "") return actions.note("/memory lists memories and candidates; /memory approve ID or /memory reject ID decides one", "warn")
    const { memories, candidates } = yield* actions.client.memories(actions.workspace())
    // One line per entry, all of its text (memory-listing.ts): what a person approves is what was shown.
    actions.timeline().detail("memory", memoryListing(memories, candidates))
  })

const mcp = (actions: SessionActions) =>
  withSession(actions, "/mcp", (id) =>
    Effect.gen(function* () {
      const status = actions.client.mcpStatus
      if (status === undefined) return actions.note("the server's MCP servers run on the server: custom-agent mcp list there shows them", "warn")
      const servers = yield* status(id)
      if (servers.length === 0) return actions.note("no MCP servers in this session (custom-agent mcp list shows the configured ones)")
      actions.timeline().detail(
        "MCP servers",
        servers.map((s) => `${s.name} (${s.origin ?? "?"}, ${s.transport}): ${s.state}${s.message === undefined ? "" : ` (${s.message})`}${s.tools.length === 0 ? "" : `\n  ${s.tools.join("\n  ")}`}`).join("\n")
      )
    })
  )

const exportSession = (actions: SessionActions, args: string) =>
  withSession(actions, "/export", (id) =>
    Effect.gen(function* () {
      const words = args.split(/\s+/).filter((word) => word !== "")
      const subagents = !words.includes("--no-subagents")
      const named = words.filter((word) => word !== "--no-subagents").join(" ")
      // As `sessions export` writes it: the session, then the subagent sessions both logs agree it started.
      const tree = withSubagents(
        {
          exportOne: actions.client.exportSession,
          subagents,
          isMissing: (error) => hasTag(error, "SessionNotFound"),
          leftOut: (childId, parentId) => Effect.sync(() => actions.note(`left out session ${childId}: ${parentId}'s log names it as a subagent, but its own log does not say so`, "warn"))
        },
        id
      )
      const events = yield* collect(tree)
      const path = resolve(actions.cwd, named === "" ? `${id}.jsonl` : named)
      // The same lines as `sessions export`: characters a terminal would obey written as `\uXXXX`.
      yield* Effect.try({
        try: () => writeFileSync(path, events.map((event) => `${jsonText(JSON.stringify(event)).text}\n`).join(""), { flag: "wx", mode: 0o600 }),
        catch: (error) => error
      })
      const others = new Set(events.map((event) => event.sessionId).filter((sessionId) => sessionId !== id)).size
      const children = others === 0 ? "" : ` (with ${others} subagent session${others === 1 ? "" : "s"})`
      actions.note(`wrote ${events.length} events to ${path}${children}`, "info")
    })
  )

/** Runs the command `name` (one of `actions.commands()`) with what was typed after it. */
export const runSlashCommand = (actions: SessionActions, name: string, args: string): Effect.Effect<void, unknown> => {
  switch (name) {
    case "help":
      return help(actions)
    case "model":
      return model(actions, args)
    case "mode":
      return mode(actions, args)
    case "new":
      return actions.open(undefined)
    case "resume":
      return resume(actions)
    case "rewind":
      return rewind(actions)
    case "redo":
      return redo(actions)
    case "fork":
      return fork(actions)
    case "compact":
      return compact(actions)
    case "context":
      return context(actions)
    case "cost":
      return cost(actions)
    case "tasks":
      return tasks(actions)
    case "permissions":
      return permissions(actions, args)
    case "memory":
      return memory(actions, args)
    case "mcp":
      return mcp(actions)
    case "agents":
      return Effect.map(actions.listings.agents(actions.workspace()), (text) => actions.timeline().detail("agents", text))
    case "hooks":
      return Effect.map(actions.listings.hooks(actions.workspace()), (text) => actions.timeline().detail("hooks", text))
    case "export":
      return exportSession(actions, args)
    case "quit":
      return Effect.sync(actions.quit)
    default:
      return Effect.sync(() => actions.note(`/${name} is not a command here (/help lists them)`, "warn"))
  }
}
