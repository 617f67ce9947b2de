import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type { EventStoreError } from "../domain/errors.js"
import { defaultOutputRetries, type TurnTerms } from "../domain/turn-terms.js"
import type { OutputValidatorShape } from "../services/OutputValidator.js"
import { CurrentTurn } from "./current-turn.js"
import type { TurnOutcome } from "./turn.js"

/** The `errorCode` of a turn whose answers never validated against its output schema. */
export const outputInvalidCode = "output_invalid"

/** What the model is told, in the system prompt, when the turn has an output schema. */
export const outputInstruction = (schema: Readonly<Record<string, unknown>>): string =>
  [
    "Your final answer must be a single JSON value, with no other text around it, that validates against this JSON Schema:",
    JSON.stringify(schema, null, 2)
  ].join("\n")

/** The system prompt of a request in a turn with these terms. */
export const withOutputContract = (system: string, terms: TurnTerms | undefined): string =>
  terms?.outputSchema === undefined ? system : `${system}${system === "" ? "" : "\n\n"}${outputInstruction(terms.outputSchema)}`

// A model asked for JSON often fences it anyway; a whole answer in one fence is taken as its content.
const fenced = /^```[a-zA-Z]*\s*\n([\s\S]*?)\n?```$/

const parseAnswer = (answer: string): { readonly value: unknown } | { readonly problem: string } => {
  const trimmed = answer.trim()
  const inner = fenced.exec(trimmed)?.[1] ?? trimmed
  try {
    return { value: JSON.parse(inner) }
  } catch (error) {
    return { problem: `the answer is not JSON (${error instanceof Error ? error.message : String(error)})` }
  }
}

const retryLead = "Your answer does not validate against the required JSON Schema:"

/** The `user.message` that sends an answer back with its problems. */
export const retryMessage = (problems: ReadonlyArray<string>): string =>
  `${retryLead}\n${problems.map((problem) => `- ${problem}`).join("\n")}\nAnswer again with only the corrected JSON value.`

/** The problems a `user.message` sent an answer back with; undefined for any other message (a person's steering). */
export const retryProblems = (content: string): ReadonlyArray<string> | undefined =>
  content.startsWith(`${retryLead}\n`)
    ? content
        .split("\n")
        .filter((line) => line.startsWith("- "))
        .map((line) => line.slice(2))
    : undefined

/** How a final answer is judged; `None` from `onFinal` means the model was asked again and the turn goes on. */
export interface OutputCheck {
  readonly onFinal: (answer: string) => Effect.Effect<Option.Option<TurnOutcome>, EventStoreError, CurrentTurn>
}

const acceptAll: OutputCheck = { onFinal: () => Effect.succeed(Option.some({ stopReason: "final" })) }

/**
 * The structured-output contract of a turn: a final answer that validates is recorded as
 * `output.structured`; one that does not is answered with a `user.message` naming the
 * problems, up to `outputRetries` times; after that the turn fails with `output_invalid`.
 */
export const outputCheck = (options: { readonly terms: TurnTerms | undefined; readonly validator: Option.Option<OutputValidatorShape> }): OutputCheck => {
  const schema = options.terms?.outputSchema
  if (schema === undefined) return acceptAll
  const retries = options.terms?.outputRetries ?? defaultOutputRetries
  let attempts = 0
  const fail = (message: string) => Effect.succeed(Option.some<TurnOutcome>({ stopReason: "error", errorCode: outputInvalidCode, message }))
  return {
    onFinal: (answer) =>
      Effect.gen(function* () {
        const turn = yield* CurrentTurn
        if (Option.isNone(options.validator)) return yield* fail("this agent has no JSON Schema validator, so the output schema cannot be checked")
        attempts++
        const parsed = parseAnswer(answer)
        const checked = "problem" in parsed ? Either.right([parsed.problem]) : yield* Effect.either(options.validator.value.problems(schema, parsed.value))
        // A schema the validator cannot use will not get better by asking the model again.
        if (Either.isLeft(checked)) return yield* fail(checked.left.message)
        const problems = checked.right
        if (problems.length === 0 && "value" in parsed) {
          yield* turn.emit({ type: "output.structured", turnId: turn.turnId, payload: { value: parsed.value, attempts } })
          return Option.some<TurnOutcome>({ stopReason: "final" })
        }
        const listed = problems.map((problem) => `- ${problem}`).join("\n")
        if (attempts > retries) return yield* fail(`no answer validated against the output schema after ${attempts} attempt(s); the last one:\n${listed}`)
        yield* turn.emit({ type: "user.message", turnId: turn.turnId, payload: { content: retryMessage(problems), mode: "steer" } })
        return Option.none()
      })
  }
}
