import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { PassThrough } from "node:stream"
import { describeQuestion, makeTerminalApprovals } from "../../src/cli/permission-question.js"
import type { ApprovalRequest } from "../../src/services/Approvals.js"

const request = (risk: ApprovalRequest["risk"], detail?: string, lasting?: ApprovalRequest["lasting"]): ApprovalRequest => ({
  sessionId: "ses_1",
  turnId: "turn_1",
  toolCallId: "call_1",
  tool: risk === "write" ? "write_file" : "shell",
  risk,
  summary: "a question",
  input: {},
  firm: false,
  outsideWorkspace: false,
  ...(detail === undefined ? {} : { detail }),
  ...(lasting === undefined ? {} : { lasting })
})

/** The question on fake terminal streams; each of `lines` is typed once the question before it was asked. */
const answer = (risk: ApprovalRequest["risk"], lines: ReadonlyArray<string>, close = false, lasting?: ApprovalRequest["lasting"]) =>
  Effect.gen(function* () {
    const input = new PassThrough()
    const output = new PassThrough()
    let shown = ""
    const queue = [...lines]
    output.on("data", (chunk: Buffer) => {
      shown += chunk.toString()
      if (/> $/.test(shown)) {
        const next = queue.shift()
        if (next !== undefined) input.write(`${next}\n`)
        else if (close) input.end()
      }
    })
    const result = yield* makeTerminalApprovals({ input, output, color: false }).ask(request(risk, undefined, lasting))
    return { result, shown }
  })

describe("the permission question at a terminal", () => {
  it.live("a lasting answer about paths asks how far it reaches, among the question's offers; the answer carries the choice", () =>
    Effect.gen(function* () {
      const cover = { tool: "write_file", paths: ["src/a.ts"], access: "write" as const }
      const wide = yield* answer("write", ["a", "3"], false, cover)
      expect(wide.result).toMatchObject({ decision: "allow", scope: "always", by: "user", cover: { paths: ["src/**"] } })
      expect(wide.shown).toContain("remember which? [1] src/a.ts (as shown)  [2] src/*  [3] src/** (Enter: 1) > ")
      // Enter keeps what was shown (no choice sent); a line that is no offer asks again.
      const plain = yield* answer("write", ["s", "9", "** please", ""], false, cover)
      expect(plain.result).toMatchObject({ decision: "allow", scope: "session" })
      expect(plain.result.cover).toBe(undefined)
      expect(plain.shown.match(/remember which\?/g)).toHaveLength(3)
      const deny = yield* answer("write", ["d", "2"], false, cover)
      expect(deny.result).toMatchObject({ decision: "deny", scope: "always", cover: { paths: ["src/*"] } })
      // Nothing to widen (a command's prefixes, a path outside the workspace): no second question.
      const command = yield* answer("execute", ["a"], false, { tool: "shell", commands: ["npm test *"] })
      expect(command.result).toMatchObject({ decision: "allow", scope: "always" })
      expect(command.shown).not.toContain("remember which?")
      const outside = yield* answer("write", ["a"], false, { tool: "write_file", paths: ["/etc/hosts"], access: "write" })
      expect(outside.shown).not.toContain("remember which?")
    })
  )

  it.live("other answers settle at once; an unknown key asks again; closed input denies", () =>
    Effect.gen(function* () {
      const again = yield* answer("execute", ["x", "s"])
      expect(again.result).toMatchObject({ decision: "allow", scope: "session" })
      expect(again.shown).not.toContain("remember which?")
      expect(again.shown.match(/\[y\] allow once/g)).toHaveLength(2)
      const closed = yield* answer("execute", [], true)
      expect(closed.result).toMatchObject({ decision: "deny", reason: "no answer (input closed)" })
    })
  )

  it("shows every line of the detail, however long, and the summary on one line", () => {
    const diff = Array.from({ length: 500 }, (_, i) => `+line ${i + 1}`).join("\n")
    const shown = describeQuestion({ ...request("write", diff), summary: "write a.txt\nallowed by rule user#1" }, false).text
    expect(shown).toContain("+line 1\n")
    expect(shown).toContain("+line 500\n")
    expect(shown).toContain("write a.txt^Jallowed by rule user#1")
  })

  it("colours the diff with the CLI's own codes only", () => {
    const shown = describeQuestion(request("write", "+add\x1b[8m hidden\n-gone"), true).text
    expect(shown).toContain("\x1b[32m+add^[[8m hidden\x1b[0m")
    expect(shown).toContain("\x1b[31m-gone\x1b[0m")
  })
})

describe("the question shows what a lasting answer would store", () => {
  it("a command's cover is the analysed prefix, shown as stored (`npm test` is `npm test *`)", () => {
    const shown = describeQuestion({ ...request("execute"), summary: "shell: npm test", lasting: { tool: "shell", commands: ["npm test *"] } }, false).text
    expect(shown).toContain("s and a cover a shell line made only of npm test *")
    expect(shown).toContain("d covers any shell line holding npm test *")
  })

  it("a path's cover names every tool it holds for", () => {
    const shown = describeQuestion({ ...request("write"), lasting: { tool: "edit_file", paths: ["src/math.js"], access: "write" } }, false).text
    expect(shown).toContain("s and a cover changes to src/math.js (write_file, edit_file)")
    expect(shown).toContain("d covers changes to src/math.js (write_file, edit_file, a shell redirection into it)")
  })

  it("a call that holds nothing to remember says the answer holds once", () => {
    expect(describeQuestion(request("execute"), false).text).toContain("s, a and d apply to this call only")
  })
})
