import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type { EngineError } from "../domain/errors.js"
import type { AgentEvent, TurnStopReason } from "../domain/events.js"
import type { ToolDefinition, Usage } from "../domain/model.js"
import type { PermissionMode } from "../domain/permissions.js"
import type { ToolResult } from "../domain/tools.js"
import type { AgentDefinition, AgentsShape } from "../services/Agents.js"
import type { ContextBuilderShape } from "../services/ContextBuilder.js"
import type { ModelGatewayShape } from "../services/ModelGateway.js"
import type { ModelUnavailable } from "../services/ModelResolver.js"
import { type PreparedCall, ToolCallRejected, type ToolRouterShape, type ToolScope } from "../services/ToolRouter.js"
import { messageOf } from "../domain/cause-message.js"
import type { Spend } from "../domain/spend.js"
import type { TurnSpend } from "./budget.js"
import type { TurnAllowance } from "./turn-allowance.js"
import { CurrentTurn, type CurrentTurnShape } from "./current-turn.js"

export const TASK_TOOL = "task"

/** How far delegation may go: levels below a top-level turn, and children running at once per turn. */
export interface SubagentLimits {
  readonly maxDepth: number
  readonly maxConcurrent: number
}

export const defaultSubagentLimits: SubagentLimits = { maxDepth: 2, maxConcurrent: 3 }

/** Where a turn stands in a delegation tree: a top-level turn is depth 0 and has no definition. */
export interface Delegation {
  readonly depth: number
  /**
   * The top-level session: a child's permission questions and remembered answers are its. A
   * child's session prompted on its own is its own root (its questions are not relayed).
   */
  readonly rootSessionId: string
  /** The parent's permission mode, read live: the child's mode is always its parent's (its own when prompted on its own). */
  readonly mode: () => PermissionMode
  /** The definition a child runs; absent for a top-level turn. */
  readonly agent?: AgentDefinition
  /** The model this turn asks: a child's definition's, else its parent's. */
  readonly model: ModelGatewayShape
  /** The turn that delegated this one (a child a `task` call runs): its steps and spend count there too. */
  readonly above?: DelegatingTurn
}

/** A turn as its children see it: what they spend and the steps they take are its own too. */
export interface DelegatingTurn {
  readonly spent: TurnSpend
  readonly allowance: TurnAllowance
}

/** What a `task` call asks the engine to run: a child session of the calling turn. */
export interface ChildRequest {
  readonly parent: { readonly sessionId: string; readonly turnId: string; readonly toolCallId: string; readonly workspaceRoot: string }
  readonly agent: AgentDefinition
  readonly prompt: string
  /** The child's place in the tree; its model is the engine's to choose (the definition's, else `parentModel`). */
  readonly delegation: Omit<Delegation, "model">
  readonly parentModel: ModelGatewayShape
}

export interface ChildResult {
  readonly childSessionId: string
  readonly stopReason: TurnStopReason
  readonly answer: string
  readonly usage: Usage
  /** What the child's turn spent, its own children's included; absent when it made no request. */
  readonly spend?: Spend
  readonly message?: string
}

/**
 * Runs a child session's one turn to its end (the engine's; `started` is told its id once its
 * `session.created` is durable, and how to read what the child has done so far, for a turn cut
 * short). Interrupting it cancels the child's turn.
 */
export type RunChild = (
  request: ChildRequest,
  started: (childSessionId: string, soFar: () => ChildResult) => Effect.Effect<void, EngineError>
) => Effect.Effect<ChildResult, EngineError | ModelUnavailable>

/** Runs subagents: the engine's side of a `task` call, provided in every turn's scope. */
export interface SubagentsShape {
  readonly run: RunChild
}

export class Subagents extends Context.Tag("custom-agent/Subagents")<Subagents, SubagentsShape>() {}

/** What the `task` tool of one turn works with besides the turn (`CurrentTurn`) and `Subagents`. */
export interface TaskTool {
  readonly agents: AgentsShape
  readonly limits: SubagentLimits
  /** This turn, as the children it starts count against it. */
  readonly asParent: DelegatingTurn
}

/** A `task` call's view: the tool, the turn it is called in, and who runs the child. */
interface TaskCall extends TaskTool {
  readonly turn: CurrentTurnShape
  readonly run: RunChild
}

export type SubagentDraft =
  | { readonly type: "subagent.started"; readonly payload: Extract<AgentEvent, { type: "subagent.started" }>["payload"] }
  | { readonly type: "subagent.completed"; readonly payload: Extract<AgentEvent, { type: "subagent.completed" }>["payload"] }

const TaskInput = Schema.Struct({
  agent: Schema.String.pipe(Schema.minLength(1)),
  prompt: Schema.String.pipe(Schema.minLength(1))
})
const decodeTaskInput = Schema.decodeUnknownEither(TaskInput, { errors: "all" })

export const taskDefinition = (agents: ReadonlyArray<AgentDefinition>): ToolDefinition => ({
  name: TASK_TOOL,
  description: [
    "Delegate a self-contained piece of work to a subagent. It starts with none of this conversation: the prompt must say everything it needs.",
    "It works under this session's permissions (never more) and its answer comes back as this tool's result.",
    "Several task calls in one step run at the same time. Available agents:",
    ...agents.map((agent) => `- ${agent.name}: ${agent.description}`)
  ].join("\n"),
  inputSchema: {
    type: "object",
    properties: {
      agent: { type: "string", enum: agents.map((agent) => agent.name), description: "Which agent to start" },
      prompt: { type: "string", description: "The task, complete on its own" }
    },
    required: ["agent", "prompt"],
    additionalProperties: false
  }
})

const preview = (text: string, max: number) => {
  const line = text.replace(/\s+/g, " ").trim()
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}

/** The model's view of a child's outcome: its answer, or why it stopped without one. */
const resultOf = (agent: string, result: ChildResult): ToolResult => {
  if (result.stopReason === "final") return { output: result.answer === "" ? `(the ${agent} subagent gave no answer)` : result.answer, isError: false }
  const why = result.message === undefined ? result.stopReason.replace("_", " ") : `${result.stopReason.replace("_", " ")}: ${result.message}`
  const partial = result.answer === "" ? "" : `\nIts last text:\n${result.answer}`
  return { output: `The ${agent} subagent (session ${result.childSessionId}) stopped without finishing (${why}).${partial}`, isError: true }
}

/** Records the parent's side of the link (`subagent.started` / `subagent.completed`) in the calling turn. */
const record = (ctx: TaskCall, draft: SubagentDraft) => ctx.turn.emit({ ...draft, turnId: ctx.turn.turnId })

/**
 * The `task` tool's call: validated like any tool's, allowed by the PermissionEngine like a
 * read (the child's own calls are checked one by one, under this session's mode and rules),
 * and run within the limits. A limit reached is a tool error the model can read.
 */
const prepareTask = (ctx: TaskCall, running: { count: number }, toolCallId: string, input: unknown, workspaceRoot: string) =>
  Effect.gen(function* () {
    const decoded = decodeTaskInput(input)
    if (Either.isLeft(decoded)) {
      const message = ParseResult.ArrayFormatter.formatErrorSync(decoded.left)
        .map((issue) => `${issue.path.join(".") || "input"}: ${issue.message}`)
        .join("; ")
      return yield* new ToolCallRejected({ toolCallId, reason: "invalid_input", message: `Invalid input for task: ${message}` })
    }
    const { agent: name, prompt } = decoded.right
    const agent = yield* ctx.agents.get(workspaceRoot, name).pipe(
      Effect.mapError((error) => new ToolCallRejected({ toolCallId, reason: "invalid_input", message: error.message, cause: error }))
    )
    const depth = ctx.turn.delegation.depth + 1
    const run = Effect.suspend((): Effect.Effect<ToolResult> => {
      if (depth > ctx.limits.maxDepth) {
        return Effect.succeed({
          output: `Cannot start the ${name} subagent: delegation is limited to ${ctx.limits.maxDepth} level(s) below the user's session, and this session is already at level ${ctx.turn.delegation.depth}. Do this work yourself.`,
          isError: true
        })
      }
      if (running.count >= ctx.limits.maxConcurrent) {
        return Effect.succeed({
          output: `Cannot start the ${name} subagent: at most ${ctx.limits.maxConcurrent} subagents run at once in a turn, and ${running.count} are running. Call it again once one has answered.`,
          isError: true
        })
      }
      running.count++
      let recorded = false
      const request: ChildRequest = {
        parent: { sessionId: ctx.turn.sessionId, turnId: ctx.turn.turnId, toolCallId, workspaceRoot },
        agent,
        prompt,
        delegation: { depth, rootSessionId: ctx.turn.delegation.rootSessionId, mode: ctx.turn.delegation.mode, agent, above: ctx.asParent },
        parentModel: ctx.turn.delegation.model
      }
      let soFar: (() => ChildResult) | undefined
      const started = (id: string, progress: () => ChildResult) => {
        soFar = progress
        return record(ctx, { type: "subagent.started", payload: { toolCallId, agent: name, childSessionId: id, prompt, depth } }).pipe(Effect.asVoid)
      }
      const completed = (result: ChildResult) =>
        Effect.suspend(() => {
          recorded = true
          return record(ctx, {
            type: "subagent.completed",
            payload: {
              toolCallId,
              agent: name,
              childSessionId: result.childSessionId,
              stopReason: result.stopReason,
              answer: result.answer,
              usage: result.usage,
              ...(result.message === undefined ? {} : { message: result.message }),
              ...(result.spend === undefined ? {} : { spend: result.spend })
            }
          })
        })
      /** The parent's side of a child that did not answer: what it used up to then still counts in the parent's turn. */
      const cutShort = (stopReason: TurnStopReason, message: string) =>
        Effect.suspend(() => {
          if (soFar === undefined || recorded) return Effect.void
          const partial = soFar()
          return completed({ ...partial, stopReason, answer: "", message }).pipe(
            Effect.catchAll((error) => Effect.logWarning(`could not record how the subagent ${partial.childSessionId} ended`, error))
          )
        })
      return ctx.run(request, started).pipe(
        Effect.tap(completed),
        Effect.map((result) => resultOf(name, result)),
        // The child's turn is closed `cancelled` by its own engine; the parent's side says so too.
        Effect.onInterrupt(() => cutShort("cancelled", "the parent's turn was cancelled")),
        Effect.tapError((error) => cutShort("error", `the subagent failed: ${messageOf(error)}`)),
        Effect.catchAll((error) =>
          Effect.succeed<ToolResult>({ output: `The ${name} subagent could not run: ${messageOf(error)}`, isError: true })
        ),
        Effect.ensuring(Effect.sync(() => running.count--))
      )
    })
    const prepared: PreparedCall = {
      risk: "read",
      summary: `task: ${name} — ${preview(prompt, 80)}`,
      detail: prompt,
      paths: [],
      outsideWorkspace: false,
      harmlessBecause: "a subagent acts only through its own permission checks, under this session's mode and rules",
      execute: run
    }
    return prepared
  })

/**
 * The tools one turn offers: its session's, narrowed by a child's definition (`tools`), plus
 * `task` when there are agent definitions to delegate to (and the definition allows it). A
 * call to a tool outside the narrowing is refused as unknown, before any permission check.
 */
export const delegatingRouter = (
  base: ToolRouterShape,
  task: TaskTool | undefined,
  allowed: ReadonlySet<string> | undefined
): Effect.Effect<ToolRouterShape, never, CurrentTurn | Subagents> =>
  Effect.map(Effect.context<CurrentTurn | Subagents>(), (context) => routerOf(base, task === undefined ? undefined : { ...task, turn: Context.get(context, CurrentTurn), run: Context.get(context, Subagents).run }, allowed))

const routerOf = (base: ToolRouterShape, ctx: TaskCall | undefined, allowed: ReadonlySet<string> | undefined): ToolRouterShape => {
  const running = { count: 0 }
  const permitted = (name: string) => allowed === undefined || allowed.has(name)
  // Read once per turn: the catalogue is the model's view for the whole turn.
  let catalogue: ReadonlyArray<AgentDefinition> | undefined
  const listAgents = (scope: ToolScope) =>
    catalogue !== undefined || ctx === undefined
      ? Effect.succeed(catalogue ?? [])
      : Effect.map(ctx.agents.list(scope.workspaceRoot), ({ agents }) => (catalogue = agents))
  return {
    definitions: (scope) =>
      Effect.gen(function* () {
        const own = (yield* base.definitions(scope)).filter((definition) => permitted(definition.name))
        if (ctx === undefined || !permitted(TASK_TOOL)) return own
        const agents = yield* listAgents(scope)
        return agents.length === 0 ? own : [...own, taskDefinition(agents)]
      }),
    prepare: (call, toolContext) => {
      if (!permitted(call.name)) {
        const agent = ctx?.turn.delegation.agent?.name ?? "this"
        return Effect.fail(
          new ToolCallRejected({
            toolCallId: call.toolCallId,
            reason: "unknown_tool",
            message: `The tool ${call.name} is not available to the ${agent} subagent (its definition allows: ${[...(allowed ?? [])].join(", ") || "none"}).`
          })
        )
      }
      if (call.name === TASK_TOOL && ctx !== undefined) return prepareTask(ctx, running, call.toolCallId, call.input, toolContext.workspaceRoot)
      return base.prepare(call, toolContext)
    }
  }
}

/** A child's context: its definition's body is its system instructions, in place of the built-in ones. */
export const childContext = (base: ContextBuilderShape, agent: AgentDefinition): ContextBuilderShape => ({
  sources: (scope) =>
    Effect.map(base.sources(scope), (sources) => [
      { kind: "system" as const, id: `agent:${agent.name}`, text: agent.instructions },
      ...sources.filter((source) => source.kind !== "system")
    ])
})
