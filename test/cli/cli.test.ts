import { afterAll, describe, expect, it } from "@effect/vitest"
import { readFileSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { Effect } from "effect"
import type { AgentEvent } from "../../src/domain/events.js"
import { repoRoot, runCli, startServer, stop } from "../support/cli.js"
import * as Replay from "../support/replay-server.js"
import { parseEventLines } from "../support/events.js"
import { makeTemp } from "../support/temp-dirs.js"

const temps = makeTemp()
afterAll(temps.cleanup)
const temp = temps.dir


const answerOf = (events: ReadonlyArray<AgentEvent>) => events.map((e) => (e.type === "model.delta" ? e.payload.text : "")).join("")

describe("custom-agent (the built CLI)", () => {
  it("prints its version", async () => {
    const result = await runCli(["--version"])
    const pkg: unknown = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8"))
    expect(result.code).toBe(0)
    expect(result.stdout.trim()).toBe(typeof pkg === "object" && pkg !== null && "version" in pkg ? pkg.version : "?")
  })

  it("run --json on a fresh data dir prints NDJSON with sequences 1..N; sessions show renders the same turn", async () => {
    const home = temp("cli-home-")
    const run = await runCli(["run", "hello", "--json"], { env: { CUSTOM_AGENT_HOME: home } })
    expect(run.code).toBe(0)
    const events = parseEventLines(run.stdout)
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1))
    expect(events[0]?.type).toBe("session.created")
    expect(events.at(-1)).toMatchObject({ type: "turn.completed", payload: { stopReason: "final" } })
    const answer = answerOf(events)
    expect(answer).toContain('You said: "hello"')

    const sessionId = events[0]?.sessionId ?? ""
    const show = await runCli(["sessions", "show", sessionId], { env: { CUSTOM_AGENT_HOME: home } })
    expect(show.code).toBe(0)
    expect(show.stdout).toContain("› hello")
    expect(show.stdout).toContain(answer)

    const list = await runCli(["sessions", "list"], { env: { CUSTOM_AGENT_HOME: home } })
    expect(list.stdout).toContain(sessionId)
    expect(list.stdout).toContain("hello")

    const exported = await runCli(["sessions", "export", sessionId], { env: { CUSTOM_AGENT_HOME: home } })
    expect(exported.stdout).toBe(run.stdout)
  })

  it("streams the answer as plain text, and --session continues the session", async () => {
    const home = temp("cli-home-")
    const first = await runCli(["run", "one"], { env: { CUSTOM_AGENT_HOME: home } })
    expect(first.code).toBe(0)
    expect(first.stdout).toContain('You said: "one"')
    const sessionId = /session (ses_\S+)/.exec(first.stderr)?.[1] ?? ""
    expect(sessionId).not.toBe("")
    const second = await runCli(["run", "two", "--session", sessionId, "--json"], { env: { CUSTOM_AGENT_HOME: home } })
    const events = parseEventLines(second.stdout)
    expect(events[0]?.type).toBe("turn.started")
    const exported = parseEventLines((await runCli(["sessions", "export", sessionId], { env: { CUSTOM_AGENT_HOME: home } })).stdout)
    expect(exported.map((e) => e.sequence)).toEqual(exported.map((_, i) => i + 1))
    expect(exported.filter((e) => e.type === "turn.completed")).toHaveLength(2)
  })

  it("works the same on the JSONL store", async () => {
    const home = temp("cli-home-")
    const run = await runCli(["run", "hello", "--json", "--store", "jsonl"], { env: { CUSTOM_AGENT_HOME: home } })
    const events = parseEventLines(run.stdout)
    const sessionId = events[0]?.sessionId ?? ""
    const file = readFileSync(join(home, "sessions", `${sessionId}.jsonl`), "utf8")
    expect(file).toBe(run.stdout)
    const show = await runCli(["sessions", "show", sessionId, "--store", "jsonl"], { env: { CUSTOM_AGENT_HOME: home } })
    expect(show.stdout).toContain(answerOf(events))
  })

  it("imports an export into another data dir; a bad file is refused with its line number and nothing is written", async () => {
    const from = temp("cli-home-")
    const to = temp("cli-home-")
    const run = await runCli(["run", "hello", "--json"], { env: { CUSTOM_AGENT_HOME: from } })
    const file = join(temp("cli-files-"), "session.jsonl")
    writeFileSync(file, run.stdout)
    const ok = await runCli(["sessions", "import", file], { env: { CUSTOM_AGENT_HOME: to } })
    expect(ok.code).toBe(0)
    const sessionId = parseEventLines(run.stdout)[0]?.sessionId ?? ""
    // The file's events as they were, then the import's reset: the session starts in default mode.
    const exported = (await runCli(["sessions", "export", sessionId], { env: { CUSTOM_AGENT_HOME: to } })).stdout
    expect(exported.startsWith(run.stdout)).toBe(true)
    expect(parseEventLines(exported.slice(run.stdout.length))).toMatchObject([{ type: "session.mode_changed", payload: { mode: "default", by: "import" } }])
    const again = await runCli(["sessions", "import", file], { env: { CUSTOM_AGENT_HOME: to } })
    expect(again.code).not.toBe(0)
    expect(again.stderr).toContain("is already in this store; nothing was imported (--as-new")

    const lines = run.stdout.trim().split("\n")
    const bad = join(temp("cli-files-"), "bad.jsonl")
    writeFileSync(bad, [...lines.slice(0, 2), lines[2]?.replace('"schemaVersion":1', '"schemaVersion":2'), ...lines.slice(3)].join("\n"))
    const empty = temp("cli-home-")
    const refused = await runCli(["sessions", "import", bad], { env: { CUSTOM_AGENT_HOME: empty } })
    expect(refused.code).toBe(1)
    expect(refused.stderr.trim().split("\n")).toHaveLength(1)
    expect(refused.stderr).toContain("line 3")
    expect(refused.stderr).toContain("schemaVersion 2")
    expect((await runCli(["sessions", "list"], { env: { CUSTOM_AGENT_HOME: empty } })).stdout).toContain("no sessions yet")
  })

  it("user mistakes are one clear line on stderr and a non-zero exit, never a stack trace", async () => {
    const home = temp("cli-home-")
    const unknown = await runCli(["sessions", "show", "ses_nope"], { env: { CUSTOM_AGENT_HOME: home } })
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toBe("custom-agent: no session ses_nope (see: custom-agent sessions list)\n")
    const model = await runCli(["run", "hi", "--model", "gpt/whatever"], { env: { CUSTOM_AGENT_HOME: home } })
    expect(model.code).toBe(2)
    expect(model.stderr).toContain('unknown model "gpt/whatever"')
    expect(model.stderr).not.toContain("    at ")
    const key = await runCli(["run", "hi", "--model", "anthropic/claude-sonnet-5-5"], { env: { CUSTOM_AGENT_HOME: home } })
    expect(key.code).toBe(1)
    expect(key.stderr).toBe("custom-agent: ANTHROPIC_API_KEY is not set\n")
    const script = join(temp("cli-files-"), "script.json")
    writeFileSync(script, JSON.stringify({ responses: [{ chunks: [{ txt: "x" }] }] }))
    const badScript = await runCli(["run", "hi", "--script", script], { env: { CUSTOM_AGENT_HOME: home } })
    expect(badScript.code).toBe(1)
    expect(badScript.stderr).toContain("not a valid script")
    const usage = await runCli(["run"], { env: { CUSTOM_AGENT_HOME: home } })
    expect(usage.code).toBe(2)
  })

  it("a provider failure ends the turn with a clear error and exit code 1", async () => {
    const home = temp("cli-home-")
    const script = join(temp("cli-files-"), "script.json")
    writeFileSync(script, JSON.stringify({ responses: [{ chunks: [{ text: "partial" }], failAfter: 1, error: { code: "overloaded", message: "the model is overloaded" } }] }))
    const result = await runCli(["run", "hi", "--script", script], { env: { CUSTOM_AGENT_HOME: home } })
    expect(result.code).toBe(1)
    expect(result.stdout).toContain("partial")
    expect(result.stderr).toContain("error (overloaded): the model is overloaded")
  })

  it("run and sessions work against a running server with --server, with the same output", async () => {
    const home = temp("cli-home-")
    const server = await startServer(["--data-dir", home])
    try {
      const env = { CUSTOM_AGENT_TOKEN: server.token, CUSTOM_AGENT_HOME: temp("cli-unused-") }
      const remote = await runCli(["run", "hello", "--json", "--server", server.url], { env })
      expect(remote.code).toBe(0)
      const events = parseEventLines(remote.stdout)
      expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1))
      expect(answerOf(events)).toContain('You said: "hello"')
      const sessionId = events[0]?.sessionId ?? ""
      const list = await runCli(["sessions", "list", "--server", server.url], { env })
      expect(list.stdout).toContain(sessionId)
      const exported = await runCli(["sessions", "export", sessionId, "--server", server.url], { env })
      expect(exported.stdout).toBe(remote.stdout)
      // The server wrote to its own data dir: the local store sees the same session.
      const local = await runCli(["sessions", "export", sessionId], { env: { CUSTOM_AGENT_HOME: home } })
      expect(local.stdout).toBe(remote.stdout)
      const refused = await runCli(["sessions", "list", "--server", server.url], { env: { ...env, CUSTOM_AGENT_TOKEN: "wrong" } })
      expect(refused.code).toBe(1)
      expect(refused.stderr).toContain(`server ${server.url}`)
    } finally {
      await stop(server.child)
    }
  })

  it("run --model anthropic/<id> against a replay server (ANTHROPIC_BASE_URL) streams the recorded answer", () =>
    Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const server = yield* Replay.start(resolve(import.meta.dirname, "../fixtures/anthropic/plain-text.json"))
          const home = temp("cli-home-")
          const result = yield* Effect.promise(() =>
            runCli(["run", "say hello", "--model", "anthropic/claude-sonnet-5-5"], {
              env: { CUSTOM_AGENT_HOME: home, ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.url }
            })
          )
          expect(result.stderr).not.toContain("custom-agent:")
          expect(result.code).toBe(0)
          expect(result.stdout).toBe("Hello, world!\n")
          const requests = yield* server.requests
          expect(requests).toHaveLength(1)
          expect(requests[0]?.headers["authorization"] ?? requests[0]?.headers["x-api-key"]).toContain("sk-ant-test")
          const json = yield* Effect.promise(() =>
            runCli(["sessions", "list"], { env: { CUSTOM_AGENT_HOME: home } })
          )
          expect(json.stdout).toContain("say hello")
        })
      )
    ))

  it("memory: a proposal waits for review; approved, it enters later requests; deleted, it leaves; /compact summarizes", async () => {
    const home = temp("cli-home-")
    const config = temp("cli-config-")
    const env = { CUSTOM_AGENT_HOME: home, CUSTOM_AGENT_CONFIG_HOME: config }
    const script = join(temp("cli-files-"), "script.json")
    writeFileSync(
      script,
      JSON.stringify({
        responses: [{ chunks: [{ toolCall: { name: "remember", input: { text: "Releases are cut on Fridays.", scope: "project" } } }] }, "Noted.", "Hello.", "Again."],
        summaries: ["Earlier: the user set a release rule."]
      })
    )
    const first = await runCli(["run", "remember our release day", "--script", script, "--json"], { env })
    expect(first.code).toBe(0)
    const events = parseEventLines(first.stdout)
    const sessionId = events[0]?.sessionId ?? ""
    const candidate = events.find((e) => e.type === "memory.candidate_proposed")
    const candidateId = candidate?.type === "memory.candidate_proposed" ? candidate.payload.candidateId : ""
    const pending = await runCli(["memory", "list", "--pending"], { env })
    expect(pending.stdout).toContain(candidateId)
    expect(pending.stdout).toContain("Releases are cut on Fridays.")
    expect((await runCli(["memory", "list"], { env })).stdout).toContain("no memories yet")

    const approved = await runCli(["memory", "review", "--approve", candidateId], { env })
    expect(approved.code).toBe(0)
    const memoryId = /as memory (\S+)/.exec(approved.stdout)?.[1] ?? ""
    expect((await runCli(["memory", "list"], { env })).stdout).toContain("Releases are cut on Fridays.")
    const again = await runCli(["memory", "review", "--approve", candidateId], { env })
    expect(again.code).toBe(1)
    expect(again.stderr).toContain("already approved")

    const second = parseEventLines((await runCli(["run", "hello", "--session", sessionId, "--script", script, "--json"], { env })).stdout)
    const memorySource = second.find((e) => e.type === "context.source" && e.payload.kind === "memory")
    expect(memorySource?.type === "context.source" && memorySource.payload.text).toContain("Releases are cut on Fridays.")

    const compact = await runCli(["run", "/compact", "--session", sessionId, "--script", script], { env })
    expect(compact.code).toBe(0)
    expect(compact.stdout).toContain("Earlier: the user set a release rule.")

    expect((await runCli(["memory", "delete", memoryId], { env })).stdout).toContain(`deleted memory ${memoryId}`)
    const show = await runCli(["sessions", "show", sessionId], { env })
    for (const line of ["memory proposed (project)", "memory approved (project) by cli", `memory ${memoryId} deleted by cli`, "compacted 2 earlier turn(s)"]) {
      expect(show.stdout).toContain(line)
    }
  })

  it("serve refuses a non-loopback address without a configured token", async () => {
    const result = await runCli(["serve", "--host", "0.0.0.0", "--port", "0"], { env: { CUSTOM_AGENT_HOME: temp("cli-home-") } })
    expect(result.code).toBe(1)
    expect(result.stderr).toContain("without a configured token")
  })
})
