import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { createInterface } from "node:readline"
import { type ApprovalAnswer, type ApprovalRequest, Approvals } from "../../services/Approvals.js"

export interface TerminalOptions {
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

const describe = (request: ApprovalRequest, color: boolean) => {
  const paint = (code: string, text: string) => (color ? `\x1b[${code}m${text}\x1b[0m` : text)
  const detail = request.detail === undefined
    ? ""
    : `${request.detail
        .split("\n")
        .slice(0, 60)
        .map((l) => (l.startsWith("+") && !l.startsWith("+++") ? paint("32", l) : l.startsWith("-") && !l.startsWith("---") ? paint("31", l) : paint("2", l)))
        .join("\n")}\n`
  return `\n${paint("33", "?")} ${paint("1", request.summary)} ${paint("2", `(${request.tool}, ${request.risk})`)}\n${detail}`
}

/**
 * Asks the person at the terminal, one line per question: allow once, for the session,
 * always, deny, or deny always; a lasting answer about a write then asks which paths it
 * covers. Closed input denies (nobody is there to say yes).
 */
export const make = (options: TerminalOptions) =>
  Approvals.of({
    ask: (request) =>
      Effect.async<ApprovalAnswer>((resume) => {
        const rl = createInterface({ input: options.input, output: options.output, terminal: false })
        let settled = false
        const settle = (answer: ApprovalAnswer) => {
          if (settled) return
          settled = true
          rl.close()
          resume(Effect.succeed(answer))
        }
        options.output.write(describe(request, options.color))
        const prompt = () => options.output.write("  [y] allow once  [s] allow for this session  [a] always  [n] deny  [d] deny always > ")
        prompt()
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
          options.output.write("  remember for which paths? (globs such as src/**, Enter: just this file) > ")
        })
        rl.on("close", () => settle(lasting ?? { decision: "deny", scope: "once", by: "user", reason: "no answer (input closed)" }))
        return Effect.sync(() => {
          settled = true
          rl.close()
          options.output.write("\n")
        })
      })
  })

export const layer = (options: TerminalOptions) => Layer.succeed(Approvals, make(options))
