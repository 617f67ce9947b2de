import { describe, expect, it } from "@effect/vitest"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { runCli } from "../support/cli.js"
import { runOnTerminal } from "../support/terminal.js"

describe("Ctrl-C at the terminal's permission prompt", () => {
  it("cancels the turn in log order, prints the question after what led to it, and says how to continue", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "ctrl-c-"))
    writeFileSync(
      join(cwd, "script.json"),
      JSON.stringify({
        responses: [
          { chunks: [{ thinking: "I should write a file." }, { text: "Writing. " }, { toolCall: { name: "write_file", input: { path: "a.txt", content: "hi\n" } } }] },
          "done"
        ]
      })
    )
    const data = join(cwd, "data")
    const { code, output } = await runOnTerminal(cwd, ["run", "--script", "script.json", "--data-dir", data, "write a.txt"], "deny always >", ["\x03"])
    expect(code).toBe(130)

    // The thinking and the tool line come before the question they led to.
    const prompt = output.indexOf("[y] allow once")
    expect(output.indexOf("thinking: I should write a file.")).toBeGreaterThan(-1)
    expect(output.indexOf("thinking: I should write a file.")).toBeLessThan(prompt)
    expect(output.indexOf("⚙ write_file")).toBeLessThan(prompt)

    const sessionId = /session (ses_\w+) · continue it with: custom-agent run --session (ses_\w+) /.exec(output)
    expect(sessionId?.[1]).toBeDefined()
    expect(sessionId?.[2]).toBe(sessionId?.[1])
    // A newline after the interrupted prompt, then "cancelled" on a line of its own.
    expect(output).toMatch(/deny always > \^C\n(?:\n)?cancelled\n/)

    const exported = await runCli(["sessions", "export", "--data-dir", data, sessionId?.[1] ?? ""], { cwd })
    expect(exported.code).toBe(0)
    const log: ReadonlyArray<{ readonly type: string; readonly turnId?: string; readonly payload: { readonly decision?: string; readonly stopReason?: string } }> =
      exported.stdout.trim().split("\n").map((line) => JSON.parse(line))
    const types = log.map((event) => event.type)
    const resolved = types.indexOf("permission.resolved")
    const completed = types.indexOf("turn.completed")
    expect(log[resolved]?.payload.decision).toBe("cancelled")
    expect(log[completed]?.payload.stopReason).toBe("cancelled")
    expect(resolved).toBeLessThan(completed)
    // Nothing of the turn after its turn.completed.
    expect(log.slice(completed + 1).filter((event) => event.turnId === log[completed]?.turnId)).toEqual([])
  })

  it("each question starts on a line of its own, after the status of the tool before it", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "ask-twice-"))
    writeFileSync(
      join(cwd, "script.json"),
      JSON.stringify({
        responses: [
          { chunks: [{ text: "Writing. " }, { toolCall: { name: "write_file", input: { path: "a.txt", content: "hi\n" } } }] },
          { chunks: [{ text: "Now a command. " }, { toolCall: { name: "shell", input: { command: "touch b.txt" } } }] },
          "done"
        ]
      })
    )
    const { code, output } = await runOnTerminal(cwd, ["run", "--script", "script.json", "--data-dir", join(cwd, "data"), "two tools"], "deny always >", ["y\n", "y\n"])
    expect(code).toBe(0)
    const prompts = [...output.matchAll(/\[y\] allow once/g)].map((match) => match.index)
    expect(prompts).toHaveLength(2)
    for (const at of prompts) expect(output.slice(at - 3, at)).toBe("\n  ")
    expect(output.indexOf("✓ write_file a.txt")).toBeLessThan(prompts[1] ?? 0)
    expect(output.indexOf("⚙ shell")).toBeLessThan(prompts[1] ?? 0)
    expect(output).toMatch(/\n {2}✓ \$ touch b\.txt \(exit 0\)/)
    expect(output).toMatch(/done\nsession ses_\w+\n$/)
  })
})
