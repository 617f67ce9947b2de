import * as Effect from "effect/Effect"
import { createInterface } from "node:readline"
import { planModeMeaning } from "../domain/plan.js"
import type { ApprovalAnswer } from "../services/Approvals.js"
import { writeSync } from "./io.js"
import { paint, term } from "./terminal-text.js"
import type { QuestionOptions } from "./permission-question.js"

const approvals: Readonly<Record<string, ApprovalAnswer>> = {
  y: { decision: "allow", scope: "once", by: "user", mode: "default" },
  e: { decision: "allow", scope: "once", by: "user", mode: "accept-edits" }
}

export const planPrompt = "  [y] approve, edits ask  [e] approve, accept edits  [n] keep planning > "
export const notePrompt = "  what should change? (a note for the agent; Enter: none) > "

/**
 * A plan's question at the terminal: approve it and pick how edits are approved from then on,
 * or keep planning with a note for the agent. The plan itself is printed just above by the
 * renderer (`plan.proposed`, every line, sanitized), so this adds only the question. Closed
 * input sends it back: nobody is there to approve it.
 */
export const askPlan = (options: QuestionOptions): Effect.Effect<ApprovalAnswer> =>
  Effect.async<ApprovalAnswer>((resume) => {
    const rl = createInterface({ input: options.input, output: options.output, terminal: false })
    const [yellow, bold, dim] = [paint(options.color, "33"), paint(options.color, "1"), paint(options.color, "2")]
    let settled = false
    let noting = false
    const settle = (answer: ApprovalAnswer) => {
      if (settled) return
      settled = true
      rl.close()
      resume(Effect.succeed(answer))
    }
    rl.on("line", (line) => {
      if (noting) {
        const note = line.trim()
        return settle({ decision: "deny", scope: "once", by: "user", ...(note === "" ? {} : { note }) })
      }
      const choice = line.trim().toLowerCase()
      const approved = approvals[choice]
      if (approved !== undefined) return settle(approved)
      if (choice !== "n") return writeSync(options.output, planPrompt)
      noting = true
      writeSync(options.output, notePrompt)
    })
    rl.on("close", () => settle({ decision: "deny", scope: "once", by: "user", reason: "no answer (input closed)" }))
    writeSync(
      options.output,
      term`\n${yellow("?")} ${bold("Approve the plan above and leave plan mode?")}\n${dim(
        [
          `  y  approve; from now on ${planModeMeaning.default}`,
          `  e  approve; from now on ${planModeMeaning["accept-edits"]}`,
          "  n  keep planning: the session stays in plan mode, and a note tells the agent what to change"
        ].join("\n")
      )}\n`
    )
    writeSync(options.output, planPrompt)
    return Effect.sync(() => {
      settled = true
      rl.close()
      writeSync(options.output, "\n")
    })
  })
