import * as Schema from "effect/Schema"

/**
 * Plan mode's way out: the model proposes a plan through this tool, a person approves it (and
 * picks the mode it is carried out in) or sends it back. The engine answers the call itself
 * (`src/core/plan-step.ts`); the name is reserved.
 */
export const PLAN_TOOL = "exit_plan_mode"

/** A plan longer than this is refused as invalid input: a person has to read all of it before answering. */
export const MAX_PLAN_CHARS = 40_000

/** A person's note on a plan sent back, passed to the model as it is. */
export const MAX_PLAN_NOTE_CHARS = 10_000

/**
 * The modes a person may carry a plan out in. Never `plan` (approving leaves it) and never
 * `bypass`: giving up every check stays an explicit start-up choice (`run --mode bypass`),
 * not one click under a text the model wrote.
 */
export const PlanExitMode = Schema.Literal("default", "accept-edits")
export type PlanExitMode = typeof PlanExitMode.Type

/** `cancelled`: the turn was cancelled while the question was open. */
export const PlanDecision = Schema.Literal("approved", "rejected", "cancelled")
export type PlanDecision = typeof PlanDecision.Type

/** The tool's input: the plan and nothing else (a mode or an approval in it is invalid input). */
export const PlanInput = Schema.Struct({
  plan: Schema.String.pipe(
    Schema.maxLength(MAX_PLAN_CHARS, { message: () => `must be at most ${MAX_PLAN_CHARS} characters: say it shorter` }),
    Schema.filter((text) => text.trim() !== "" || "must not be blank")
  )
})
export type PlanInput = typeof PlanInput.Type

/** A person's note, bounded: it goes to the model as the call's result. */
export const PlanNote = Schema.String.pipe(Schema.maxLength(MAX_PLAN_NOTE_CHARS))

/** What each mode a plan can be carried out in means, in the words the questions and the model's result use. */
export const planModeMeaning: Readonly<Record<PlanExitMode, string>> = {
  default: "edits and commands ask the user first",
  "accept-edits": "edits inside the workspace run without asking; commands still ask"
}
