import * as Effect from "effect/Effect"
import type { ToolDefinition } from "../domain/model.js"
import { PLAN_TOOL } from "../domain/plan.js"
import type { ToolRouterShape } from "../services/ToolRouter.js"

/** What the model is told of the tool; `planModeSection` tells it when to use it. */
export const planDefinition: ToolDefinition = {
  name: PLAN_TOOL,
  description: [
    "Propose your plan to the user and ask to leave plan mode. Call it once you have explored enough (read-only) to know what to do.",
    "Pass the plan as Markdown: the steps, the files you will change, and how you will check the work.",
    "The user approves it (choosing how your edits are approved from then on) and you carry it out in this turn, or sends it back with a note and the session stays in plan mode.",
    "Only the user can approve a plan; do not use this tool to ask questions."
  ].join(" "),
  inputSchema: {
    type: "object",
    properties: { plan: { type: "string", description: "The plan, in Markdown" } },
    required: ["plan"],
    additionalProperties: false
  }
}

/**
 * The system prompt's part for plan mode, present exactly when the request offers the tool (so
 * a request rebuilt from the log, whose `context.built` names its tools, gets it back too).
 */
export const planModeSection = [
  "# Plan mode",
  "",
  "The session is in plan mode: the user wants a plan before anything changes. Explore read-only (read_file, list_files, grep); edits and commands are refused.",
  `When you know what to do, call ${PLAN_TOOL} with your plan. The user approves it, and you then carry it out, or sends it back with a note: revise it and propose it again.`,
  "A question that needs no change is answered directly, without a plan."
].join("\n")

/** The system prompt with plan mode's part appended when the request offers the plan tool. */
export const withPlanMode = (system: string, tools: ReadonlyArray<string>): string =>
  !tools.includes(PLAN_TOOL) ? system : system === "" ? planModeSection : `${system}\n\n${planModeSection}`

/**
 * A session's own turns offer the plan tool while the session is in plan mode (read at each
 * request: after an approval the next request no longer has it). Its calls never reach the
 * router: the engine answers them (`plan-step.ts`).
 */
export const withPlanTool = (base: ToolRouterShape, inPlanMode: () => boolean): ToolRouterShape => ({
  definitions: (scope) => Effect.map(base.definitions(scope), (own) => (inPlanMode() ? [...own, planDefinition] : own)),
  prepare: base.prepare
})
