import * as Effect from "effect/Effect"
import { createInterface } from "node:readline"
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

/**
 * Asks the person at the terminal, one line per question: allow once, for the session,
 * always, deny, or deny always; a lasting answer about a write then asks which paths it
 * covers. Closed input denies (nobody is there to say yes). A plan's question is `askPlan`'s.
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
        // A lasting answer about a file can name more than it: a glob the person types.
        let lasting: ApprovalAnswer | undefined
        rl.on("line", (line) => {
          if (lasting !== undefined) {
            const globs = line.trim().split(/\s+/).filter((glob) => glob !== "")
            return settle(globs.length === 0 ? lasting : { ...lasting, paths: globs })
          }
          const choice = choices[line.trim().toLowerCase()]
          if (choice === undefined) return prompt()
          if (choice.scope === "once" || request.risk !== "write") return settle(choice)
          lasting = choice
          writeSync(options.output, "  remember for which paths? (globs such as src/**, Enter: just this file) > ")
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
