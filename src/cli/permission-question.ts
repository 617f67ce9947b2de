import * as Effect from "effect/Effect"
import { createInterface } from "node:readline"
import { type ChosenCover, type LastingChoice, lastingChoices } from "../domain/lasting-choices.js"
import { describeCover } from "../domain/permissions.js"
import { type ApprovalAnswer, type ApprovalRequest, Approvals } from "../services/Approvals.js"
import { writeSync } from "./io.js"
import { joinText, paint, sanitizeInline, type TerminalText, term } from "./terminal-text.js"
import { askPlan } from "./plan-question.js"

export interface QuestionOptions {
  readonly input: NodeJS.ReadableStream
  readonly output: NodeJS.WritableStream
  readonly color: boolean
}

const choices: Record<string, ApprovalAnswer> = {
  y: { decision: "allow", scope: "once", by: "user" },
  s: { decision: "allow", scope: "session", by: "user" },
  a: { decision: "allow", scope: "always", by: "user" },
  n: { decision: "deny", scope: "once", by: "user" },
  d: { decision: "deny", scope: "always", by: "user" }
}

/**
 * The question as a person reads it: the summary on one line, then every line of the detail
 * (the whole command, the whole diff), nothing cut. The model, a file or a server chose all of
 * it, so every control and invisible character in it is shown visibly (`^M`, `^[`, `<U+202E>`):
 * what is on the screen is what the answer decides.
 */
export const describeQuestion = (request: ApprovalRequest, color: boolean): TerminalText => {
  const [yellow, bold, dim, red, green] = [paint(color, "33"), paint(color, "1"), paint(color, "2"), paint(color, "31"), paint(color, "32")]
  const detail =
    request.detail === undefined
      ? ""
      : term`${joinText(
          request.detail
            .replace(/\n$/, "")
            .split("\n")
            .map((l) => (l.startsWith("+") && !l.startsWith("+++") ? green(l) : l.startsWith("-") && !l.startsWith("---") ? red(l) : dim(l))),
          "\n"
        )}\n`
  // What s, a and d would store, before anyone answers: "always" for `npm test` is `npm test *`.
  const lasting =
    request.lasting === undefined
      ? "s, a and d apply to this call only: nothing in it can be remembered safely"
      : `s and a cover ${describeCover(request.lasting, "allow")}; d covers ${describeCover(request.lasting, "deny")}`
  return term`\n${yellow("?")} ${bold(sanitizeInline(request.summary))} ${dim(sanitizeInline(`(${request.tool}, ${request.risk})`))}\n${detail}  ${dim(sanitizeInline(lasting))}\n`
}

/** The choices for a lasting answer, one line: `[1] src/a.ts (as shown)  [2] src/*  [3] src/**`. */
export const describeChoices = (choices: ReadonlyArray<LastingChoice>): TerminalText =>
  joinText(choices.map((choice, i) => term`[${String(i + 1)}] ${sanitizeInline(choice.label)}`), "  ")

/** The answer with the choice numbered `line` (1-based; empty is the first: what the question showed), or undefined for another line. */
export const withChoice = <A extends { readonly cover?: ChosenCover | undefined }>(answer: A, choices: ReadonlyArray<LastingChoice>, line: string): A | undefined => {
  const typed = line.trim()
  const picked = typed === "" ? choices[0] : /^\d+$/.test(typed) ? choices[Number(typed) - 1] : undefined
  if (picked === undefined) return undefined
  return picked.chosen === undefined ? answer : { ...answer, cover: picked.chosen }
}

/**
 * Asks the person at the terminal, one line per question: allow once, for the session,
 * always, deny, or deny always; a lasting answer about paths then asks how far it reaches,
 * among the question's offers (`lastingChoices`: the paths shown, their folders' files,
 * everything under their folders). Closed input denies (nobody is there to say yes). A plan's
 * question is `askPlan`'s.
 */
export const makeTerminalApprovals = (options: QuestionOptions) =>
  Approvals.of({
    ask: (request) =>
      request.plan !== undefined ? askPlan(options) : Effect.async<ApprovalAnswer>((resume) => {
        const rl = createInterface({ input: options.input, output: options.output, terminal: false })
        let settled = false
        const settle = (answer: ApprovalAnswer) => {
          if (settled) return
          settled = true
          rl.close()
          resume(Effect.succeed(answer))
        }
        const prompt = () => writeSync(options.output, "  [y] allow once  [s] allow for this session  [a] always  [n] deny  [d] deny always > ")
        const offers = request.lasting === undefined ? [] : lastingChoices(request.lasting)
        const askReach = () => writeSync(options.output, term`  remember which? ${describeChoices(offers)} (Enter: 1) > `)
        // A lasting answer about paths can reach further than the call, as far as the question offers.
        let lasting: ApprovalAnswer | undefined
        rl.on("line", (line) => {
          if (lasting !== undefined) {
            const chosen = withChoice(lasting, offers, line)
            return chosen === undefined ? askReach() : settle(chosen)
          }
          const choice = choices[line.trim().toLowerCase()]
          if (choice === undefined) return prompt()
          if (choice.scope === "once" || offers.length < 2) return settle(choice)
          lasting = choice
          askReach()
        })
        rl.on("close", () => settle(lasting ?? { decision: "deny", scope: "once", by: "user", reason: "no answer (input closed)" }))
        // Asked once the answer is listened for: a reply that comes at once is not lost.
        writeSync(options.output, describeQuestion(request, options.color))
        prompt()
        return Effect.sync(() => {
          settled = true
          rl.close()
          writeSync(options.output, "\n")
        })
      })
  })
