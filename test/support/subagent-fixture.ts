import { Chunk, Effect, Layer, Stream } from "effect"
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SessionEngine, type SessionEngineOptions, defaultEngineOptions } from "../../src/core/SessionEngine.js"
import type { AgentEvent } from "../../src/domain/events.js"
import type { PermissionMode } from "../../src/domain/permissions.js"
import * as AgentFolders from "../../src/layers/agents/folders.js"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import type { Script } from "../../src/layers/model/scripted.js"
import { localTools } from "../../src/layers/tools/local.js"
import { sandboxOff } from "../../src/layers/sandbox/off.js"
import { EventStore } from "../../src/services/EventStore.js"
import { engineLayer, type HarnessOptions, type StoreLayer } from "./engine-harness.js"

export interface AgentFile {
  readonly name: string
  readonly description: string
  readonly tools?: string
  readonly maxSteps?: number
  readonly model?: string
  readonly body: string
}

const dirs: Array<string> = []
export const removeSubagentDirs = () => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
}

/** A workspace with the given files and agent definitions in `.agents/agents/`. */
export const subagentWorkspace = (agents: ReadonlyArray<AgentFile>, files: Record<string, string> = {}) => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "subagents-")))
  dirs.push(dir)
  mkdirSync(join(dir, ".agents", "agents"), { recursive: true })
  for (const agent of agents) {
    const header = [
      `name: ${agent.name}`,
      `description: ${agent.description}`,
      ...(agent.tools === undefined ? [] : [`tools: ${agent.tools}`]),
      ...(agent.maxSteps === undefined ? [] : [`maxSteps: ${agent.maxSteps}`]),
      ...(agent.model === undefined ? [] : [`model: ${agent.model}`])
    ]
    writeFileSync(join(dir, ".agents", "agents", `${agent.name}.md`), `---\n${header.join("\n")}\n---\n${agent.body}\n`)
  }
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content)
  return dir
}

const emptyConfigDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "subagents-config-"))
  dirs.push(dir)
  return dir
}

/** Every append in the order it reached the store, across sessions: `sessionId type`. */
export const recordingStore = (order: Array<string>, store: StoreLayer = MemoryStore.layer): StoreLayer =>
  Layer.effect(
    EventStore,
    Effect.map(EventStore, (inner) =>
      EventStore.of({
        ...inner,
        append: (event) => Effect.tap(inner.append(event), () => Effect.sync(() => order.push(`${event.sessionId} ${event.type}`))),
        appendAll: (events) => Effect.tap(inner.appendAll(events), () => Effect.sync(() => events.forEach((e) => order.push(`${e.sessionId} ${e.type}`))))
      })
    )
  ).pipe(Layer.provide(store))

/** An engine with the local tools and the project's agent definitions (no user definitions). */
export const subagentEngine = (
  script: Script,
  options: { readonly store?: StoreLayer; readonly engine?: Partial<SessionEngineOptions>; readonly harness?: HarnessOptions } = {}
) =>
  engineLayer(options.store ?? MemoryStore.layer, script, {
    tools: localTools(sandboxOff),
    agents: AgentFolders.layer({ configDir: emptyConfigDir() }),
    engine: { ...defaultEngineOptions, ...options.engine },
    ...options.harness
  })

export const toolCall = (name: string, input: unknown, id?: string) => ({ toolCall: { name, input, ...(id === undefined ? {} : { id }) } })
export const task = (agent: string, prompt: string, id?: string) => toolCall("task", { agent, prompt }, id)

/** One turn in a new session at `cwd`: its id and the turn's events. */
export const parentTurn = (cwd: string, prompt: string, permissionMode: PermissionMode = "default") =>
  Effect.gen(function* () {
    const engine = yield* SessionEngine
    const { header } = yield* engine.createSession({ cwd, client: "test" })
    const events = yield* Stream.runCollect(engine.runTurn({ sessionId: header.sessionId, content: prompt, permissionMode }))
    return { sessionId: header.sessionId, events: Chunk.toArray(events) }
  })

/** The child sessions a log started, in the order it started them. */
export const childrenOf = (events: ReadonlyArray<AgentEvent>): ReadonlyArray<string> =>
  events.flatMap((e) => (e.type === "subagent.started" ? [e.payload.childSessionId] : []))
