import { afterAll, describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Fiber, Layer, Ref, Stream } from "effect"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { SessionEngine } from "../../src/core/SessionEngine.js"
import type { AgentEvent } from "../../src/domain/events.js"
import type { ConversationMessage } from "../../src/domain/model.js"
import type { PermissionMode } from "../../src/domain/permissions.js"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import type { Script } from "../../src/layers/model/scripted.js"
import { projectSettingsFile } from "../../src/layers/sandbox/settings.js"
import { localTools } from "../../src/layers/tools/local.js"
import { sandboxOff } from "../../src/layers/sandbox/off.js"
import { PermissionEngine } from "../../src/services/PermissionEngine.js"
import { awaitEvent, engineLayer, type HarnessOptions, replayAll, type StoreLayer } from "../support/engine-harness.js"
import { eventsOf } from "../support/events.js"
import { hooksLayer, type HooksJson, writeScript, writeSettings } from "../support/hooks-fixture.js"
import { awaitPids, isRunning } from "../support/process-check.js"
import { RecordedRequests, recordingScripted } from "../support/recording-model.js"
import { storeCases } from "../support/store-cases.js"
import { makeTemp } from "../support/temp-dirs.js"

const temp = makeTemp()
afterAll(temp.cleanup)

const toolCall = (name: string, input: unknown, id: string) => ({ chunks: [{ toolCall: { name, input, id } }] })

/** A workspace, and a config directory whose settings.json holds the user's hooks. */
const dirs = (userHooks: HooksJson = {}) => {
  const workspace = temp.dir("hooks-ws-")
  const configDir = temp.dir("hooks-config-")
  writeSettings(join(configDir, "settings.json"), userHooks)
  return { workspace, configDir }
}

const setup = (script: Script, configDir: string, options: HarnessOptions & { readonly store?: StoreLayer } = {}) => {
  const recording = recordingScripted(script)
  return engineLayer(options.store ?? MemoryStore.layer, undefined, {
    model: recording,
    tools: localTools(sandboxOff),
    hooks: hooksLayer(configDir),
    ...options
  }).pipe(Layer.provideMerge(recording))
}

const newSession = (cwd: string) => Effect.map(Effect.flatMap(SessionEngine, (engine) => engine.createSession({ cwd, client: "test" })), (info) => info.header.sessionId)

const turn = (sessionId: string, content: string, permissionMode: PermissionMode = "default") =>
  Effect.flatMap(SessionEngine, (engine) => Stream.runCollect(engine.runTurn({ sessionId, content, permissionMode }))).pipe(Effect.map(Chunk.toArray))

const requests = Effect.map(Effect.flatMap(RecordedRequests, Ref.get), (all) => all.filter((r) => r.purpose === "turn"))

const textsOf = (messages: ReadonlyArray<ConversationMessage>): ReadonlyArray<string> =>
  messages.flatMap((m) => m.content.flatMap((part) => (part._tag === "text" ? [part.text] : part._tag === "tool_result" ? [part.output] : [])))

const ran = (events: ReadonlyArray<AgentEvent>) => eventsOf(events, "hook.ran").map((e) => e.payload)

describe("hooks in a turn, with real hook scripts", () => {
  it.live("a PreToolUse hook that exits 2 blocks shell (matched by Claude's name Bash): the call never runs and the model reads the reason", () => {
    const scratch = temp.dir("hooks-scripts-")
    const hook = writeScript(join(scratch, "no-shell.sh"), "#!/bin/sh\ncat > /dev/null\necho 'shell is off limits in this repo' >&2\nexit 2\n")
    const { workspace, configDir } = dirs({ PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: hook }] }] })
    const script = { responses: [toolCall("shell", { command: "echo ran > ran.txt" }, "call_sh"), "understood"] }
    return Effect.gen(function* () {
      const sessionId = yield* newSession(workspace)
      // Even bypass mode, which allows everything, cannot run what a hook blocks.
      const events = yield* turn(sessionId, "run something", "bypass")
      expect(eventsOf(events, "tool.started")).toHaveLength(0)
      expect(existsSync(join(workspace, "ran.txt"))).toBe(false)
      expect(ran(events)).toEqual([
        expect.objectContaining({ event: "PreToolUse", matcher: "Bash", command: hook, source: "user", toolCallId: "call_sh", exitCode: 2, decision: "deny", reason: "shell is off limits in this repo" })
      ])
      expect(eventsOf(events, "permission.resolved")[0]?.payload).toMatchObject({ decision: "deny", by: "hook", hook })
      const second = (yield* requests)[1]
      expect(textsOf(second?.messages ?? []).some((text) => text.includes("shell is off limits in this repo"))).toBe(true)
    }).pipe(Effect.provide(setup(script, configDir)))
  })

  it.live("a PostToolUse hook on write_file gets the path on stdin and formats the file", () => {
    const scratch = temp.dir("hooks-scripts-")
    // A formatter: trailing spaces go, and the path it was given is kept for the test.
    const formatter = writeScript(
      join(scratch, "format.mjs"),
      `#!/usr/bin/env node
import { readFileSync, writeFileSync } from "node:fs"
const input = JSON.parse(readFileSync(0, "utf8"))
const path = input.tool_input.file_path
writeFileSync(path, readFileSync(path, "utf8").split("\\n").map((line) => line.trimEnd()).join("\\n"))
writeFileSync(${JSON.stringify(join(scratch, "received.json"))}, JSON.stringify({ event: input.hook_event_name, tool: input.tool_name, path, ours: input.tool_input.path, response: input.tool_response.is_error, session: input.session_id, cwd: input.cwd }))
`
    )
    const { workspace, configDir } = dirs({ PostToolUse: [{ matcher: "Write|Edit", hooks: [{ type: "command", command: `node ${formatter}` }] }] })
    const script = { responses: [toolCall("write_file", { path: "src/a.ts", content: "const a = 1;   \nexport { a }  \n" }, "call_w"), "written"] }
    return Effect.gen(function* () {
      const sessionId = yield* newSession(workspace)
      const events = yield* turn(sessionId, "write a", "accept-edits")
      expect(readFileSync(join(workspace, "src/a.ts"), "utf8")).toBe("const a = 1;\nexport { a }\n")
      expect(JSON.parse(readFileSync(join(scratch, "received.json"), "utf8"))).toEqual({
        event: "PostToolUse",
        tool: "write_file",
        path: join(workspace, "src/a.ts"),
        ours: "src/a.ts",
        response: false,
        session: sessionId,
        cwd: workspace
      })
      const hookRun = ran(events)
      expect(hookRun).toEqual([expect.objectContaining({ event: "PostToolUse", toolCallId: "call_w", exitCode: 0, timedOut: false })])
      // After the call's result, in the log's order.
      const types = events.map((e) => e.type)
      expect(types.indexOf("hook.ran")).toBeGreaterThan(types.indexOf("tool.completed"))
    }).pipe(Effect.provide(setup(script, configDir)))
  })

  it.live("a hook that times out is killed with everything it started, and the turn goes on", () => {
    const scratch = temp.dir("hooks-scripts-")
    const pidFile = join(scratch, "pids")
    const slow = writeScript(join(scratch, "slow.sh"), `#!/bin/bash\nsleep 60 &\necho "$$ $!" > ${pidFile}\nwait\n`)
    const { workspace, configDir } = dirs({ PreToolUse: [{ matcher: "*", hooks: [{ type: "command", command: slow, timeout: 1 }] }] })
    const script = { responses: [toolCall("shell", { command: "echo still-ran" }, "call_sh"), "done"] }
    return Effect.gen(function* () {
      const sessionId = yield* newSession(workspace)
      const events = yield* turn(sessionId, "go", "bypass")
      expect(ran(events)).toEqual([expect.objectContaining({ event: "PreToolUse", timedOut: true, exitCode: null })])
      expect(ran(events)[0]?.output).toContain("timed out after 1 s")
      const pids = readFileSync(pidFile, "utf8").trim().split(" ").map(Number)
      expect(pids).toHaveLength(2)
      for (const pid of pids) expect(isRunning(pid)).toBe(false)
      // A hook that fails decides nothing: the call ran under the rules' answer.
      expect(eventsOf(events, "tool.completed")[0]?.payload.output).toContain("still-ran")
      expect(eventsOf(events, "turn.completed")[0]?.payload.stopReason).toBe("final")
    }).pipe(Effect.provide(setup(script, configDir)))
  })

  it.live("cancelling the turn while a hook runs kills the hook and everything it started; the turn ends cancelled", () => {
    const scratch = temp.dir("hooks-scripts-")
    const pidFile = join(scratch, "pids")
    const slow = writeScript(join(scratch, "slow.sh"), `#!/bin/bash\nsleep 60 &\nprintf '%s\\n%s\\n' $$ $! > ${pidFile}.tmp\nmv ${pidFile}.tmp ${pidFile}\nwait\n`)
    const { workspace, configDir } = dirs({ PreToolUse: [{ hooks: [{ type: "command", command: slow }] }] })
    const script = { responses: [toolCall("shell", { command: "echo never" }, "call_sh"), "done"] }
    return Effect.gen(function* () {
      const engine = yield* SessionEngine
      const sessionId = yield* newSession(workspace)
      const running = yield* Effect.fork(turn(sessionId, "go", "bypass"))
      const pids = yield* awaitPids(pidFile, 2)
      yield* engine.cancelTurn(sessionId)
      const events = yield* Fiber.join(running)
      for (const pid of pids) expect(isRunning(pid)).toBe(false)
      expect(eventsOf(events, "tool.started")).toHaveLength(0)
      expect(eventsOf(events, "turn.completed")[0]?.payload.stopReason).toBe("cancelled")
    }).pipe(Effect.provide(setup(script, configDir)))
  })

  it.live("a hook's allow cannot beat a user rule's deny or a protected path; it can answer a default question", () => {
    const scratch = temp.dir("hooks-scripts-")
    const allowAll = writeScript(
      join(scratch, "allow.sh"),
      `#!/bin/sh\ncat > /dev/null\necho '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"looks fine"}}'\n`
    )
    const { workspace, configDir } = dirs({ PreToolUse: [{ hooks: [{ type: "command", command: allowAll }] }] })
    const rules = join(configDir, "permissions.json")
    writeFileSync(rules, JSON.stringify({ rules: [{ tool: "shell", command: "rm *", decision: "deny" }] }))
    const script = {
      responses: [
        { chunks: [{ toolCall: { name: "shell", input: { command: "rm -rf src" }, id: "call_rm" } }, { toolCall: { name: "write_file", input: { path: ".git/config", content: "x" }, id: "call_git" } }, { toolCall: { name: "shell", input: { command: "echo fine" }, id: "call_echo" } }] },
        "ok"
      ]
    }
    return Effect.gen(function* () {
      const sessionId = yield* newSession(workspace)
      const events = yield* turn(sessionId, "go")
      const resolved = new Map(eventsOf(events, "permission.resolved").map((e) => [e.payload.toolCallId, e.payload]))
      expect(resolved.get("call_rm")).toMatchObject({ decision: "deny", by: "rule" })
      // A protected path is for a person to allow: the (scripted) person said no.
      expect(resolved.get("call_git")).toMatchObject({ decision: "deny", by: "user" })
      expect(resolved.get("call_echo")).toMatchObject({ decision: "allow", by: "hook", hook: allowAll })
      const runs = new Map(ran(events).map((run) => [run.toolCallId, run]))
      expect(runs.get("call_rm")?.overruled).toContain("cannot allow what is denied")
      expect(runs.get("call_git")?.overruled).toContain("only a person may allow this")
      expect(runs.get("call_echo")?.overruled).toBeUndefined()
      const started = eventsOf(events, "tool.started").map((e) => e.payload.toolCallId)
      expect(started).toEqual(["call_echo"])
    }).pipe(Effect.provide(setup(script, configDir, { userRulesFile: rules, answers: [{ decision: "deny", scope: "once", by: "user" }] })))
  })

  it.live("a PreToolUse hook's ask turns an allowed read into a question; the person's answer names the hook", () => {
    const scratch = temp.dir("hooks-scripts-")
    const ask = writeScript(
      join(scratch, "ask.sh"),
      `#!/bin/sh\ncat > /dev/null\necho '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"secrets live here"}}'\n`
    )
    const { workspace, configDir } = dirs({ PreToolUse: [{ matcher: "Read", hooks: [{ type: "command", command: ask }] }] })
    writeFileSync(join(workspace, "a.txt"), "a\n")
    const script = { responses: [toolCall("read_file", { path: "a.txt" }, "call_r"), "ok"] }
    return Effect.gen(function* () {
      const sessionId = yield* newSession(workspace)
      const events = yield* turn(sessionId, "go")
      expect(eventsOf(events, "permission.requested")[0]?.payload).toMatchObject({ toolCallId: "call_r", tool: "read_file" })
      expect(eventsOf(events, "permission.resolved")[0]?.payload).toMatchObject({ decision: "allow", by: "user", hook: ask })
      expect(ran(events)[0]).toMatchObject({ decision: "ask", reason: "secrets live here" })
      expect(eventsOf(events, "tool.started").map((e) => e.payload.toolCallId)).toEqual(["call_r"])
    }).pipe(Effect.provide(setup(script, configDir, { answers: [{ decision: "allow", scope: "once", by: "user" }] })))
  })

  it.live("a PermissionRequest hook answers a question for the person: its deny holds", () => {
    const scratch = temp.dir("hooks-scripts-")
    const deny = writeScript(
      join(scratch, "deny.sh"),
      `#!/bin/sh\ncat > /dev/null\necho '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"no writes on Fridays"}}}'\n`
    )
    const { workspace, configDir } = dirs({ PermissionRequest: [{ matcher: "write_file", hooks: [{ type: "command", command: deny }] }] })
    const script = { responses: [toolCall("write_file", { path: "a.txt", content: "x" }, "call_w"), "ok"] }
    return Effect.gen(function* () {
      const sessionId = yield* newSession(workspace)
      const events = yield* turn(sessionId, "go")
      expect(eventsOf(events, "permission.requested")).toHaveLength(0)
      expect(eventsOf(events, "permission.resolved")[0]?.payload).toMatchObject({ decision: "deny", by: "hook", hook: deny })
      expect(existsSync(join(workspace, "a.txt"))).toBe(false)
      expect(textsOf((yield* requests)[1]?.messages ?? []).some((text) => text.includes("no writes on Fridays"))).toBe(true)
    }).pipe(Effect.provide(setup(script, configDir)))
  })

  it.live("Stop can send the agent back once with its reason; the second time it is recorded, not followed", () => {
    const scratch = temp.dir("hooks-scripts-")
    const seen = join(scratch, "seen")
    const stop = writeScript(join(scratch, "stop.sh"), `#!/bin/sh\ncat >> ${seen}\necho >> ${seen}\necho 'run the tests first' >&2\nexit 2\n`)
    const { workspace, configDir } = dirs({ Stop: [{ hooks: [{ type: "command", command: stop }] }] })
    const script = { responses: ["done", "tests pass, done", "never asked"] }
    return Effect.gen(function* () {
      const sessionId = yield* newSession(workspace)
      const events = yield* turn(sessionId, "fix it")
      const sent = yield* requests
      expect(sent).toHaveLength(2)
      const last = sent[1]?.messages.at(-1)
      expect(last?.role).toBe("user")
      expect(textsOf(last === undefined ? [] : [last]).join("\n")).toContain("Do not stop yet: run the tests first")
      const runs = ran(events)
      expect(runs).toHaveLength(2)
      expect(runs[0]).toMatchObject({ event: "Stop", decision: "continue", reason: "run the tests first" })
      expect(runs[0]?.context).toContain("run the tests first")
      expect(runs[1]).toMatchObject({ event: "Stop", decision: "continue", overruled: "the turn already went on once for a Stop hook" })
      expect(runs[1]?.context).toBeUndefined()
      const inputs = readFileSync(seen, "utf8").trim().split("\n").map((line) => JSON.parse(line))
      expect(inputs.map((input) => input.stop_hook_active)).toEqual([false, true])
      expect(eventsOf(events, "turn.completed")[0]?.payload.stopReason).toBe("final")
    }).pipe(Effect.provide(setup(script, configDir)))
  })

  it.live("a UserPromptSubmit hook that exits 2 blocks the prompt: no model request, and later requests never see it", () => {
    const scratch = temp.dir("hooks-scripts-")
    const guard = writeScript(
      join(scratch, "guard.mjs"),
      `#!/usr/bin/env node
import { readFileSync } from "node:fs"
const input = JSON.parse(readFileSync(0, "utf8"))
if (input.prompt.includes("password")) { process.stderr.write("prompts must not contain secrets"); process.exit(2) }
`
    )
    const { workspace, configDir } = dirs({ UserPromptSubmit: [{ hooks: [{ type: "command", command: `node ${guard}` }] }] })
    const script = { responses: ["hello"] }
    return Effect.gen(function* () {
      const sessionId = yield* newSession(workspace)
      const blocked = yield* turn(sessionId, "my password is hunter2")
      expect(eventsOf(blocked, "turn.completed")[0]?.payload).toMatchObject({ stopReason: "error", errorCode: "prompt_blocked" })
      expect(eventsOf(blocked, "turn.completed")[0]?.payload.message).toContain("prompts must not contain secrets")
      expect(yield* requests).toHaveLength(0)
      yield* turn(sessionId, "say hello")
      const sent = yield* requests
      expect(textsOf(sent[0]?.messages ?? [])).toEqual(["say hello"])
    }).pipe(Effect.provide(setup(script, configDir)))
  })
})

describe("UserPromptSubmit on steering messages", () => {
  it.live("a steering message a hook blocks never reaches the model; the others do, and the turn goes on", () => {
    const scratch = temp.dir("hooks-scripts-")
    const waiting = join(scratch, "waiting")
    const go = join(scratch, "go")
    // Holds the turn in its tool step until the test has steered.
    const hold = writeScript(join(scratch, "hold.sh"), `#!/bin/sh\ncat > /dev/null\ntouch ${waiting}\nwhile [ ! -f ${go} ]; do sleep 0.02; done\n`)
    const guard = writeScript(
      join(scratch, "guard.mjs"),
      `#!/usr/bin/env node
import { readFileSync } from "node:fs"
if (JSON.parse(readFileSync(0, "utf8")).prompt.includes("password")) { process.stderr.write("no secrets"); process.exit(2) }
`
    )
    const { workspace, configDir } = dirs({
      PreToolUse: [{ hooks: [{ type: "command", command: hold }] }],
      UserPromptSubmit: [{ hooks: [{ type: "command", command: `node ${guard}` }] }]
    })
    writeFileSync(join(workspace, "a.txt"), "a\n")
    const script = { responses: [toolCall("read_file", { path: "a.txt" }, "call_r"), "answered"] }
    return Effect.gen(function* () {
      const engine = yield* SessionEngine
      const sessionId = yield* newSession(workspace)
      expect((yield* engine.prompt({ sessionId, content: "read a" }))._tag).toBe("Started")
      while (!existsSync(waiting)) yield* Effect.sleep("20 millis")
      expect((yield* engine.prompt({ sessionId, content: "my password is hunter2", mode: "steer" }))._tag).toBe("Queued")
      expect((yield* engine.prompt({ sessionId, content: "also check b", mode: "steer" }))._tag).toBe("Queued")
      writeFileSync(go, "")
      yield* awaitEvent(sessionId, "turn.completed")
      const log = yield* replayAll(sessionId)
      const texts = textsOf((yield* requests)[1]?.messages ?? [])
      expect(texts).toContain("also check b")
      expect(texts.some((text) => text.includes("hunter2"))).toBe(false)
      const steered = eventsOf(log, "user.message").filter((e) => e.payload.mode === "steer")
      const prompts = ran(log).filter((run) => run.event === "UserPromptSubmit")
      expect(prompts.map((run) => [run.promptSequence, run.decision])).toEqual([
        [eventsOf(log, "user.message")[0]?.sequence, undefined],
        [steered[0]?.sequence, "block"],
        [steered[1]?.sequence, undefined]
      ])
      expect(eventsOf(log, "turn.completed")[0]?.payload.stopReason).toBe("final")
    }).pipe(Effect.provide(setup(script, configDir)))
  })
})

describe("session lifecycle hooks", () => {
  it.live("SessionStart adds context at a session's first turn here (startup, then resume after a reload); SessionEnd runs when it leaves memory; PreCompact before /compact", () => {
    const scratch = temp.dir("hooks-scripts-")
    const seen = join(scratch, "seen")
    const log = writeScript(join(scratch, "log.sh"), `#!/bin/sh
cat >> ${seen}
echo >> ${seen}
`)
    const start = writeScript(join(scratch, "start.sh"), `#!/bin/sh
cat >> ${seen}
echo >> ${seen}
echo "on branch main"
`)
    const { workspace, configDir } = dirs({
      SessionStart: [{ matcher: "startup|resume", hooks: [{ type: "command", command: start }] }],
      SessionEnd: [{ hooks: [{ type: "command", command: log }] }],
      PreCompact: [{ matcher: "manual", hooks: [{ type: "command", command: log }] }]
    })
    const script = { responses: ["one", "two", "three"], summaries: ["they said one"] }
    return Effect.gen(function* () {
      const engine = yield* SessionEngine
      const sessionId = yield* newSession(workspace)
      yield* turn(sessionId, "first")
      yield* turn(sessionId, "second")
      const sent = yield* requests
      expect(textsOf(sent[0]?.messages ?? [])).toEqual(["first", `[SessionStart hook \`${start}\`]\non branch main`])
      // Once per session in this process: the second turn runs none.
      expect(textsOf(sent[1]?.messages ?? []).filter((text) => text.includes("on branch main"))).toHaveLength(1)

      yield* engine.evict(sessionId)
      yield* turn(sessionId, "third")
      yield* engine.compact(sessionId)
      const events = yield* replayAll(sessionId)
      expect(ran(events).map((run) => run.event)).toEqual(["SessionStart", "SessionEnd", "SessionStart", "PreCompact"])
      const end = eventsOf(events, "hook.ran").find((e) => e.payload.event === "SessionEnd")
      expect(end?.turnId).toBeUndefined()
      const inputs = readFileSync(seen, "utf8").trim().split("\n").map((line) => JSON.parse(line))
      expect(inputs.map((input) => [input.hook_event_name, input.source ?? input.reason ?? input.trigger])).toEqual([
        ["SessionStart", "startup"],
        ["SessionEnd", "other"],
        ["SessionStart", "resume"],
        ["PreCompact", "manual"]
      ])
    }).pipe(Effect.provide(setup(script, configDir)))
  })
})

for (const store of storeCases) {
  describe(`UserPromptSubmit context (${store.name} store)`, () => {
    it.live("the context a hook adds is in the next request and in the log, and a session loaded again from the log still has it", () => {
      const scratch = temp.dir("hooks-scripts-")
      const context = writeScript(
        join(scratch, "context.sh"),
        `#!/bin/sh\ncat > /dev/null\necho '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"Ticket ABC-1 is in scope."}}'\n`
      )
      const { workspace, configDir } = dirs({ UserPromptSubmit: [{ hooks: [{ type: "command", command: context }] }] })
      const script = { responses: ["first", "second"] }
      return Effect.gen(function* () {
        const engine = yield* SessionEngine
        const sessionId = yield* newSession(workspace)
        yield* turn(sessionId, "what is in scope?")
        const first = (yield* requests)[0]
        expect(textsOf(first?.messages ?? [])).toEqual(["what is in scope?", `[UserPromptSubmit hook \`${context}\`]\nTicket ABC-1 is in scope.`])
        const log = yield* replayAll(sessionId)
        expect(ran(log)).toEqual([expect.objectContaining({ event: "UserPromptSubmit", exitCode: 0, context: `[UserPromptSubmit hook \`${context}\`]\nTicket ABC-1 is in scope.` })])

        // The hook now says something else: the earlier turn keeps what was recorded.
        writeFileSync(context, "#!/bin/sh\ncat > /dev/null\n")
        yield* engine.evict(sessionId)
        yield* turn(sessionId, "and now?")
        const second = (yield* requests)[1]
        expect(textsOf(second?.messages ?? [])).toEqual([
          "what is in scope?",
          `[UserPromptSubmit hook \`${context}\`]\nTicket ABC-1 is in scope.`,
          "first",
          "and now?"
        ])
      }).pipe(Effect.provide(setup(script, configDir, { store: store.fresh() })))
    })
  })
}

describe("project hooks and trust", () => {
  it.live("an untrusted project hook does not run; once trusted it does; an edit needs trust again", () => {
    const { workspace, configDir } = dirs()
    const marker = join(workspace, "hook-ran")
    const hook = writeScript(join(workspace, ".custom-agent", "hooks", "mark.sh"), `#!/bin/sh\ncat > /dev/null\necho x >> ${marker}\n`)
    writeSettings(projectSettingsFile(workspace), { PreToolUse: [{ matcher: "read_file", hooks: [{ type: "command", command: hook }] }] })
    writeFileSync(join(workspace, "a.txt"), "a\n")
    const read = toolCall("read_file", { path: "a.txt" }, "call_r")
    const script = { responses: [read, "ok", read, "ok", read, "ok"] }
    return Effect.gen(function* () {
      const permissions = yield* PermissionEngine
      const sessionId = yield* newSession(workspace)
      const untrusted = yield* turn(sessionId, "one")
      expect(existsSync(marker)).toBe(false)
      expect(ran(untrusted)).toHaveLength(0)
      expect(eventsOf(untrusted, "permission.project_rules")[0]?.payload).toMatchObject({ hooks: 1, trusted: false })

      const status = yield* permissions.projectTrust(workspace)
      expect(status.hooks).toEqual([`PreToolUse [read_file]: ${hook}`])
      yield* permissions.trustProject(workspace, status.sha256 ?? "", "user")
      const trusted = yield* turn(sessionId, "two")
      expect(readFileSync(marker, "utf8")).toBe("x\n")
      expect(ran(trusted)).toEqual([expect.objectContaining({ source: "project", command: hook })])
      expect(eventsOf(trusted, "permission.project_rules")[0]?.payload).toMatchObject({ hooks: 1, trusted: true, trustedBy: "user" })

      // Claude Code's project file is trusted with the rest: a hook added there needs trust again, and none of them runs meanwhile.
      writeSettings(join(workspace, ".claude", "settings.json"), { PreToolUse: [{ matcher: "Read", hooks: [{ type: "command", command: hook }] }] })
      const changed = yield* turn(sessionId, "three")
      expect(ran(changed)).toHaveLength(0)
      expect(readFileSync(marker, "utf8")).toBe("x\n")
      expect(eventsOf(changed, "permission.project_rules")[0]?.payload).toMatchObject({ hooks: 2, trusted: false })
    }).pipe(Effect.provide(setup(script, configDir)))
  })
})
