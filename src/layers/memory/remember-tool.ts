import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { Tool } from "../../services/ToolRouter.js"
import { makeTool } from "../tools/make-tool.js"

const Input = Schema.Struct({
  text: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(2_000)).annotations({
    description: "The fact, convention or preference to remember, as one self-contained sentence or short paragraph."
  }),
  scope: Schema.optionalWith(Schema.Literal("project", "user"), { default: () => "project" }).annotations({
    description: "project: only for this repository (default); user: for every project of this user."
  }),
  from_sequence: Schema.optional(Schema.Int.pipe(Schema.positive())).annotations({
    description: "First event of the conversation that supports it (default: the start of this turn)."
  }),
  to_sequence: Schema.optional(Schema.Int.pipe(Schema.positive())).annotations({
    description: "Last event of the conversation that supports it (default: now)."
  })
})

/**
 * Proposes a memory. Proposing changes nothing: the candidate waits for a person to approve
 * or reject it (`custom-agent memory review`, the API, the web page).
 */
export const rememberTool: Tool = makeTool({
  name: "remember",
  description:
    "Propose something to remember across sessions (a project convention, a user preference, a hard-won fact). " +
    "It takes effect only after the user approves it; do not use it for things that are in the repository anyway.",
  input: Input,
  prepare: (input) =>
    Effect.succeed({
      risk: "read",
      summary: `remember (${input.scope}): ${input.text.length > 80 ? `${input.text.slice(0, 79)}…` : input.text}`,
      paths: [],
      outsideWorkspace: false,
      harmlessBecause: "remember only proposes a memory: nothing changes until a person approves it",
      execute: Effect.succeed({
        output: "Proposed as a memory candidate. It has no effect until the user approves it.",
        isError: false,
        data: {
          _tag: "memory_candidate",
          text: input.text,
          scope: input.scope,
          ...(input.from_sequence === undefined ? {} : { fromSequence: input.from_sequence }),
          ...(input.to_sequence === undefined ? {} : { toSequence: input.to_sequence })
        }
      })
    })
})
