import { expect } from "@effect/vitest"
import { Chunk, Effect, Stream } from "effect"
import { spawnSync } from "node:child_process"
import { chmodSync, existsSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { type AgentConfig, agentLayer, type CoreServices } from "../../src/app/agent.js"
import { SessionEngine } from "../../src/core/SessionEngine.js"
import type { AgentEvent } from "../../src/domain/events.js"
import type { Script } from "../../src/layers/model/scripted.js"
import * as PolicyApprovals from "../../src/layers/approvals/policy.js"
import { PermissionEngine } from "../../src/services/PermissionEngine.js"
import { eventsOf } from "../support/events.js"
import { type Call, leaked, type SecurityCase } from "./cases.js"
import { type Fixture, fillDeep, makeFixture, protectedView, snapshot, tempDir } from "./fixture.js"

/** The id the scripted model gives the case's n-th call (0-based). */
export const callId = (index: number) => `call_${index + 1}`

/** One response with every call of the case, then a final answer. */
export const scriptFor = (fx: Fixture, calls: ReadonlyArray<Call>): Script => ({
  responses: [
    { chunks: calls.map((call, i) => ({ toolCall: { name: call.tool, input: fillDeep(fx, call.input), id: callId(i) } })) },
    "done"
  ]
})

/** A fresh fixture with the case's files, rules files and script in place. */
export const prepareFixture = (c: SecurityCase): Fixture => {
  const fx = makeFixture()
  writeFileSync(join(fx.config, "permissions.json"), `${JSON.stringify(fillDeep(fx, { rules: c.rules ?? [] }))}\n`)
  if (c.projectRules !== undefined) {
    writeFileSync(join(fx.ws, ".custom-agent", "permissions.json"), `${JSON.stringify(fillDeep(fx, { rules: c.projectRules }))}\n`)
  }
  c.setup?.(fx)
  writeFileSync(scriptPath(fx), JSON.stringify(scriptFor(fx, c.calls)))
  return fx
}

export const scriptPath = (fx: Fixture) => join(fx.root, "script.json")

/**
 * The agent as the CLI builds it, in this process: real local tools, the real
 * PermissionEngine, a SQLite store in the fixture's data dir, the scripted model, questions
 * answered by a headless policy, and the sandbox as configured by default (on where
 * bubblewrap works). Every option the suite sets is here.
 */
export const agentConfig = (fx: Fixture, c: SecurityCase): AgentConfig => ({
  dataDir: fx.data,
  configDir: fx.config,
  store: "sqlite",
  model: { spec: "scripted", scriptPath: scriptPath(fx) },
  approvals: PolicyApprovals.layer(c.approve ?? "deny"),
  workspaceRoots: [fx.ws]
})

/** `HOME` (so `~` in a command) points into the fixture while the case runs. */
export const withHome = <A, E, R>(home: string, effect: Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const previous = process.env["HOME"]
      process.env["HOME"] = home
      return previous
    }),
    () => effect,
    (previous) =>
      Effect.sync(() => {
        if (previous === undefined) delete process.env["HOME"]
        else process.env["HOME"] = previous
      })
  )

/** Trusts the project's rules file as it is now, as a person would after reading it. */
export const trustProjectRules = (fx: Fixture) =>
  Effect.gen(function* () {
    const permissions = yield* PermissionEngine
    const trust = yield* permissions.projectTrust(fx.ws)
    if (trust.sha256 === undefined) return yield* Effect.dieMessage("the project has no rules file to trust")
    yield* permissions.trustProject(fx.ws, trust.sha256, "security-suite")
  })

export interface Outcome {
  readonly events: ReadonlyArray<AgentEvent>
  /** The fixture around the turn (`snapshot`); empty for an allowed case, which compares none. */
  readonly before: Record<string, string>
  readonly after: Record<string, string>
}

/** `effect` run in the case's in-process agent, with `HOME` pointing into the fixture. */
export const withAgent = <A, E>(fx: Fixture, c: SecurityCase, effect: Effect.Effect<A, E, SessionEngine | CoreServices>): Effect.Effect<A, unknown> =>
  withHome(fx.home, effect.pipe(Effect.provide(agentLayer(agentConfig(fx, c)))))

/** Runs one turn in the session, in the case's mode (or the session's own when the case names none). */
export const runTurn = (c: SecurityCase, sessionId: string) =>
  Effect.flatMap(SessionEngine, (engine) =>
    Stream.runCollect(engine.runTurn({ sessionId, content: c.name, ...(c.mode === undefined ? {} : { permissionMode: c.mode }) }))
  ).pipe(Effect.map(Chunk.toArray))

/** Runs the case's turn through the in-process agent; snapshots the fixture around the turn. */
export const runInProcess = (c: SecurityCase, fx: Fixture): Effect.Effect<Outcome, unknown> =>
  withAgent(
    fx,
    c,
    Effect.gen(function* () {
      const engine = yield* SessionEngine
      const { header } = yield* engine.createSession({ cwd: fx.ws, client: "security-suite" })
      if (c.trustProject === true) yield* trustProjectRules(fx)
      if (c.before !== undefined) yield* c.before(fx, header.sessionId)
      // Only a denied or contained case compares the fixture before and after; an allowed one has its
      // own check (hashing every file twice was most of the time of the case with a 600 MiB file).
      const compared = c.expect.kind !== "allowed"
      const before = compared ? snapshot(fx.root) : {}
      const events = yield* runTurn(c, header.sessionId)
      return { events, before, after: compared ? snapshot(fx.root) : {} }
    })
  )

const describeCall = (fx: Fixture, c: SecurityCase, index: number) => {
  const call = c.calls[index]
  return call === undefined ? callId(index) : `${callId(index)} ${call.tool} ${JSON.stringify(fillDeep(fx, call.input))}`
}

/** Checks the case's expectation on a finished turn. */
export const assertOutcome = (c: SecurityCase, fx: Fixture, { events, before, after }: Outcome) => {
  const resolved = eventsOf(events, "permission.resolved").map((e) => e.payload)
  const started = new Set(eventsOf(events, "tool.started").map((e) => e.payload.toolCallId))
  const log = JSON.stringify(events)
  const expectation = c.expect
  c.calls.forEach((call, i) => {
    const id = callId(i)
    const what = describeCall(fx, c, i)
    const answers = resolved.filter((r) => r.toolCallId === id)
    switch (expectation.kind) {
      case "denied":
        expect(started.has(id), `${what} must not start`).toBe(false)
        expect(answers.filter((a) => a.decision === "allow"), `${what} must not be allowed`).toEqual([])
        if (expectation.by !== undefined) {
          expect(answers.length, `${what} must be resolved`).toBeGreaterThan(0)
          for (const a of answers) expect(expectation.by, `${what} denied by ${a.by} (${a.reason ?? ""})`).toContain(a.by)
        }
        break
      case "contained":
        if (call.tool === "shell") expect(started.has(id), `${what} should run (inside the sandbox)`).toBe(true)
        break
      case "allowed": {
        expect(answers.map((a) => a.decision), `${what} must be allowed`).toEqual(["allow"])
        const by = expectation.by ?? ["rule"]
        expect(by, `${what} allowed by ${answers[0]?.by} (${answers[0]?.reason ?? ""})`).toContain(answers[0]?.by)
        expect(started.has(id), `${what} must start`).toBe(true)
        break
      }
    }
  })
  switch (expectation.kind) {
    case "denied":
      expect(after, "nothing in the workspace, outside, home, config or data may change").toEqual(before)
      expect(leaked(fx, log), "the log must not hold a secret from outside or from .env").toBe(false)
      if (expectation.harm !== undefined) expect(expectation.harm(fx, log), "the attack's harm must not be done").toBe(false)
      break
    case "contained":
      expect(protectedView(after), "outside, home, config, data and protected folders must not change").toEqual(protectedView(before))
      if (expectation.harm !== undefined) expect(expectation.harm(fx, ""), "the sandbox must stop the harm").toBe(false)
      break
    case "allowed":
      expectation.check?.(fx, events)
      break
  }
}

/**
 * A folder put first on the control's PATH with an `npm` that answers a plain `npm test` in
 * the workspace as its script would (`ok`) and hands everything else to the real npm: the
 * control proves what the rest of the line does, without paying npm's start-up (~300 ms)
 * each time.
 */
const npmShim = (() => {
  let dir: string | undefined
  return () => {
    // Made again after the fixtures' cleanup removed it (one per test file).
    if (dir !== undefined && existsSync(dir)) return dir
    const real = spawnSync("/bin/bash", ["-c", "command -v npm"], { encoding: "utf8" }).stdout.trim()
    dir = tempDir("ca-security-shim-")
    const shim = join(dir, "npm")
    writeFileSync(
      shim,
      [
        "#!/bin/sh",
        // Only a plain run: options in the environment (NODE_OPTIONS, npm_config_*) go to the real npm.
        'if [ "$#" -eq 1 ] && [ "$1" = test ] && [ "$(pwd -P)" = "$CONTROL_WS" ] && [ -z "$NODE_OPTIONS" ] && ! env | grep -qi "^npm_config_"; then',
        "  echo ok; exit 0",
        "fi",
        `exec ${real} "$@"`,
        ""
      ].join("\n")
    )
    chmodSync(shim, 0o755)
    return dir
  }
})()

/**
 * The control: the same line, run by bash directly in a fresh fixture, does harm. A case
 * whose attack is a dud would pass whatever the agent did; this makes such a case fail.
 */
export const assertControl = (c: SecurityCase) => {
  const expectation = c.expect
  if (expectation.kind === "allowed" || expectation.control === false) return
  if (!c.calls.every((call) => call.tool === "shell")) return
  const fx = prepareFixture(c)
  const before = snapshot(fx.root)
  let output = ""
  for (const call of c.calls) {
    const command = fillDeep(fx, call.input["command"])
    if (typeof command !== "string") throw new Error(`${c.name}: a shell call without a command`)
    const run = spawnSync("/bin/bash", ["-c", command], {
      cwd: fx.ws,
      env: { PATH: `${npmShim()}:${process.env["PATH"] ?? ""}`, HOME: fx.home, CONTROL_WS: fx.ws },
      encoding: "utf8",
      timeout: 20_000
    })
    output += `${run.stdout ?? ""}${run.stderr ?? ""}`
  }
  const after = snapshot(fx.root)
  const view = expectation.kind === "contained" ? protectedView : (entries: Record<string, string>) => entries
  const harmed =
    expectation.harm !== undefined ? expectation.harm(fx, output) : JSON.stringify(view(after)) !== JSON.stringify(view(before)) || leaked(fx, output)
  expect(harmed, `control: run by bash directly, the line should do its harm (output: ${output.slice(0, 400)})`).toBe(true)
}

/** One case, in process: the control, then the turn through the agent, then the checks. */
export const runCase = (c: SecurityCase) =>
  Effect.gen(function* () {
    assertControl(c)
    const fx = prepareFixture(c)
    const outcome = yield* runInProcess(c, fx)
    assertOutcome(c, fx, outcome)
  })
