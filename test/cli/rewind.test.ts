import { afterAll, describe, expect, it } from "vitest"
import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { runCli, startServer, stop } from "../support/cli.js"
import { parseEventLines } from "../support/events.js"
import { makeTemp } from "../support/temp-dirs.js"
import { runOnTerminal } from "../support/terminal.js"

const temp = makeTemp()
afterAll(temp.cleanup)

const toolCall = (name: string, input: unknown) => ({ chunks: [{ toolCall: { name, input } }] })

/** Turn 1 writes a file and makes a binary, executable one with the shell; turn 2 changes both and makes another. */
const turnOne = [
  toolCall("write_file", { path: "notes.md", content: "# Notes\nfirst draft, ünïcode\n" }),
  toolCall("shell", { command: "printf 'bin\\000ary' > data.bin && chmod 755 data.bin" }),
  "done one"
]
const turnTwo = [
  toolCall("write_file", { path: "notes.md", content: "rewritten\n" }),
  toolCall("shell", { command: "echo x > made-by-shell.txt && printf 'changed' > data.bin && chmod 644 data.bin" }),
  "done two"
]

const scriptFile = (responses: ReadonlyArray<unknown>) => {
  const file = join(temp.dir("rewind-script-"), "script.json")
  writeFileSync(file, JSON.stringify({ responses }))
  return file
}

/** Every file of a flat workspace: its bytes and mode. */
const filesOf = (dir: string) =>
  Object.fromEntries(
    readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => [entry.name, { bytes: readFileSync(join(dir, entry.name)).toString("base64"), mode: statSync(join(dir, entry.name)).mode & 0o777 }])
  )

const sessionOf = (stderr: string) => /session (ses_\S+)\n/.exec(stderr)?.[1] ?? ""

const agentArgs = ["--sandbox", "off", "--approve", "allow-all"]

describe("sessions rewind, redo and fork (the real checkpoint store)", () => {
  it("a rewind before turn 2 restores its files byte for byte, shell-made ones too; drift without --force is refused and changes nothing", async () => {
    const home = temp.dir("rewind-home-")
    const workspace = temp.dir("rewind-ws-")
    writeFileSync(join(workspace, "keep.txt"), "untouched\n")
    chmodSync(join(workspace, "keep.txt"), 0o600)
    const env = { CUSTOM_AGENT_HOME: home }
    const one = await runCli(["run", "one", "--script", scriptFile(turnOne), ...agentArgs], { env, cwd: workspace })
    expect(one.code, one.stderr).toBe(0)
    const sessionId = sessionOf(one.stderr)
    const beforeTurnTwo = filesOf(workspace)
    expect(Object.keys(beforeTurnTwo).sort()).toEqual(["data.bin", "keep.txt", "notes.md"])
    const two = await runCli(["run", "two", "--session", sessionId, "--script", scriptFile(turnTwo), ...agentArgs], { env, cwd: workspace })
    expect(two.code, two.stderr).toBe(0)
    expect(filesOf(workspace)).not.toEqual(beforeTurnTwo)
    const afterTurnTwo = filesOf(workspace)

    const rewound = await runCli(["sessions", "rewind", sessionId, "--turn", "2"], { env })
    expect(rewound.code, rewound.stderr).toBe(0)
    expect(rewound.stdout).toMatch(/^restored 3 file\(s\) from checkpoint #\d+:\n {2}data\.bin\n {2}made-by-shell\.txt\n {2}notes\.md\nconversation rewound to event #\d+/)
    expect(filesOf(workspace)).toEqual(beforeTurnTwo)

    // Changed by hand since: a redo would overwrite it, so without a terminal or --force it is refused.
    writeFileSync(join(workspace, "notes.md"), "my own edit\n")
    const exported = (await runCli(["sessions", "export", sessionId], { env })).stdout
    const refused = await runCli(["sessions", "redo", sessionId], { env })
    expect(refused.code).toBe(1)
    expect(refused.stderr).toBe(
      "custom-agent: 1 file(s) changed since the session's last checkpoint by something other than the agent: notes.md; nothing was changed (--force overwrites them)\n"
    )
    expect(readFileSync(join(workspace, "notes.md"), "utf8")).toBe("my own edit\n")
    expect((await runCli(["sessions", "export", sessionId], { env })).stdout).toBe(exported)

    const forced = await runCli(["sessions", "redo", sessionId, "--force"], { env })
    expect(forced.code, forced.stderr).toBe(0)
    expect(forced.stdout).toContain("  notes.md (overwrote a change made outside the agent)")
    expect(forced.stdout).not.toContain("already match")
    expect(filesOf(workspace)).toEqual(afterTurnTwo)

    const shown = await runCli(["sessions", "show", sessionId], { env })
    expect(shown.stdout).toContain("↺ files restored to checkpoint")
    expect(shown.stdout).toContain("↺ redo: conversation rewound to")
    const log = parseEventLines((await runCli(["sessions", "export", sessionId], { env })).stdout)
    expect(log.filter((e) => e.type === "checkpoint.recorded").map((e) => e.type === "checkpoint.recorded" && e.payload.trigger)).toEqual([
      "before_tools",
      "after_tools",
      "after_tools",
      "after_tools",
      "after_tools"
    ])
  })

  it("fork prints the new session's id; a rewind of the conversation marks the rewound part in show; all of it over --server too", async () => {
    const home = temp.dir("rewind-home-")
    const workspace = temp.dir("rewind-ws-")
    const env = { CUSTOM_AGENT_HOME: home }
    const one = await runCli(["run", "one", "--script", scriptFile(turnOne), ...agentArgs], { env, cwd: workspace })
    const sessionId = sessionOf(one.stderr)
    const two = await runCli(["run", "two", "--session", sessionId, "--script", scriptFile(turnTwo), ...agentArgs], { env, cwd: workspace })
    expect(two.code, two.stderr).toBe(0)
    const log = parseEventLines((await runCli(["sessions", "export", sessionId], { env })).stdout)
    const secondTurn = log.filter((e) => e.type === "turn.started")[1]?.sequence ?? 0

    const fork = await runCli(["sessions", "fork", sessionId, "--at", String(secondTurn + 1)], { env })
    expect(fork.code, fork.stderr).toBe(0)
    expect(fork.stdout).toMatch(/^ses_\S+\n$/)
    expect(fork.stderr).toBe(`custom-agent: event #${secondTurn + 1} is inside a turn: the fork's history ends at #${secondTurn - 1}, before that turn\n`)
    const forked = parseEventLines((await runCli(["sessions", "export", fork.stdout.trim()], { env })).stdout)
    expect(forked[1]).toMatchObject({ type: "session.forked", payload: { sourceSessionId: sessionId, atSequence: secondTurn + 1, copiedThrough: secondTurn - 1 } })

    const conversation = await runCli(["sessions", "rewind", sessionId, "--turn", "2", "--conversation"], { env })
    expect(conversation.stdout).toBe(`conversation rewound to event #${secondTurn - 1}: the next turn follows on from it\n`)
    const shown = (await runCli(["sessions", "show", sessionId], { env })).stdout
    expect(shown).toContain(`┄┄ rewound: events #${secondTurn}–#${log.length} are no longer part of the conversation ┄┄\n#${secondTurn} ── turn 2`)
    expect(shown).toMatch(/┄┄ end of the rewound part ┄┄\n#\d+ ↺ conversation rewound to/)

    const server = await startServer(["--data-dir", home, "--sandbox", "off"])
    try {
      const remote = { env: { CUSTOM_AGENT_TOKEN: server.token, CUSTOM_AGENT_HOME: temp.dir("rewind-unused-") } }
      const redo = await runCli(["sessions", "redo", sessionId, "--server", server.url], remote)
      expect(redo.code, redo.stderr).toBe(0)
      expect(redo.stdout).toBe(`redo: conversation rewound to event #${log.length}: the next turn follows on from it\n`)
      const files = await runCli(["sessions", "rewind", sessionId, "--at", String(secondTurn - 1), "--file", join(workspace, "notes.md"), "--server", server.url], remote)
      expect(files.code, files.stderr).toBe(0)
      expect(files.stdout).toMatch(/^restored 1 file\(s\) from checkpoint #\d+:\n {2}notes\.md\n$/)
      expect(readFileSync(join(workspace, "notes.md"), "utf8")).toBe("# Notes\nfirst draft, ünïcode\n")
      const remoteFork = await runCli(["sessions", "fork", sessionId, "--server", server.url], remote)
      expect(remoteFork.stdout).toMatch(/^ses_\S+\n$/)
      const missing = await runCli(["sessions", "rewind", "ses_nope", "--turn", "1", "--server", server.url], remote)
      expect(missing.code).toBe(1)
      expect(missing.stderr).toBe("custom-agent: no session ses_nope (see: custom-agent sessions list)\n")
    } finally {
      await stop(server.child)
    }
  })

  it("on a terminal, drift is listed and the person is asked: no changes nothing, yes overwrites", async () => {
    const home = temp.dir("rewind-home-")
    const workspace = temp.dir("rewind-ws-")
    const one = await runCli(["run", "one", "--script", scriptFile(turnOne), ...agentArgs], { env: { CUSTOM_AGENT_HOME: home }, cwd: workspace })
    const sessionId = sessionOf(one.stderr)
    writeFileSync(join(workspace, "notes.md"), "my own edit\n")
    const rewind = ["sessions", "rewind", sessionId, "--turn", "1", "--files", "--data-dir", home]
    const no = await runOnTerminal(workspace, rewind, "overwrite them? [y/N]", ["n\n"])
    expect(no.code).toBe(1)
    expect(no.output).toContain("These files changed since the session's last checkpoint by something other than the agent:\n  notes.md\noverwrite them? [y/N] ")
    expect(no.output).toContain("custom-agent: nothing was changed\n")
    expect(readFileSync(join(workspace, "notes.md"), "utf8")).toBe("my own edit\n")
    const yes = await runOnTerminal(workspace, rewind, "overwrite them? [y/N]", ["y\n"])
    expect(yes.code, yes.output).toBe(0)
    // One account of what happened: the file was put back, over the change made outside.
    expect(yes.output).toMatch(/restored 2 file\(s\) from checkpoint #\d+:\r?\n {2}data\.bin\r?\n {2}notes\.md \(overwrote a change made outside the agent\)/)
    expect(yes.output).not.toContain("already match")
    expect(Object.keys(filesOf(workspace))).toEqual([])
  })

  it("usage errors exit 2 before anything runs", async () => {
    const env = { CUSTOM_AGENT_HOME: temp.dir("rewind-home-") }
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
      [["sessions", "rewind", "ses_x"], "give one of --turn N or --at SEQ"],
      [["sessions", "rewind", "ses_x", "--turn", "1", "--at", "2"], "give one of --turn N or --at SEQ"],
      [["sessions", "rewind", "ses_x", "--turn", "-1"], "--turn must be a whole number ≥ 1, got -1"],
      [["sessions", "rewind", "ses_x", "--turn", "1", "--files", "--conversation"], "--files and --conversation exclude each other"],
      [["sessions", "rewind", "ses_x", "--turn", "1", "--file", "a", "--conversation"], "--file restores a file"],
      [["sessions", "rewind", "--turn", "1"], "missing <session-id>"],
      [["sessions", "fork", "ses_x", "--at", "0"], "--at must be a whole number ≥ 1, got 0"],
      [["sessions", "redo", "ses_x", "--forse"], "unknown option --forse; did you mean --force?"]
    ]
    for (const [args, message] of cases) {
      const result = await runCli(args, { env })
      expect(result.code, args.join(" ")).toBe(2)
      expect(result.stderr, args.join(" ")).toContain(message)
    }
  })
})
