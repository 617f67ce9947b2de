import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { runCli } from "../support/cli.js"
import { parseEventLines } from "../support/events.js"
import * as Replay from "../support/replay-server.js"
import { makeTemp } from "../support/temp-dirs.js"

const temps = makeTemp()
afterAll(temps.cleanup)

/** A reviewer whose definition names `model`, in `folder` (a project's `.agents/agents` or the user's `agents`). */
const reviewerIn = (folder: string, model: string) => {
  mkdirSync(folder, { recursive: true })
  writeFileSync(join(folder, "reviewer.md"), `---\nname: reviewer\ndescription: Reviews files\nmodel: ${model}\n---\nYou review files. Answer in one sentence.\n`)
}

/** A workspace with `notes.txt`. */
const workspace = () => {
  const dir = temps.dir("subagent-model-")
  writeFileSync(join(dir, "notes.txt"), "ship on Friday\n")
  return dir
}

const fixture = (name: string) => resolve(import.meta.dirname, "../fixtures", name)

const bodyOf = (request: Replay.RecordedRequest | undefined) => JSON.stringify(request?.body ?? null)
const modelOf = (request: Replay.RecordedRequest) => {
  const body = request.body
  return typeof body === "object" && body !== null && "model" in body ? body.model : undefined
}

/** The session ids `sessions list` prints. */
const listedSessions = (home: string) =>
  Effect.map(
    Effect.promise(() => runCli(["sessions", "list", "--all"], { env: { CUSTOM_AGENT_HOME: home } })),
    (listed) => listed.stdout.match(/\bses_\w+/g) ?? []
  )

describe("a subagent on its definition's model, through the CLI", { timeout: 60_000 }, () => {
  it("run --model anthropic/claude-opus-5-5: the reviewer (model: haiku) asks claude-haiku-5-5, the parent claude-opus-5-5", () =>
    Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const server = yield* Replay.start(fixture("anthropic/subagent-own-model.json"))
          const home = temps.dir("subagent-model-home-")
          const env = { CUSTOM_AGENT_HOME: home, CUSTOM_AGENT_CONFIG_HOME: temps.dir("subagent-model-config-"), ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.url }
          const cwd = workspace()
          reviewerIn(join(cwd, ".agents", "agents"), "haiku")
          const result = yield* Effect.promise(() => runCli(["run", "Have notes.txt reviewed", "--model", "anthropic/claude-opus-5-5"], { env, cwd }))
          expect(result.stderr).not.toContain("custom-agent:")
          expect(result.code).toBe(0)
          expect(result.stdout).toContain("The reviewer says notes.txt is fine.")
          const requests = yield* server.requests
          expect(requests.map(modelOf)).toEqual(["claude-opus-5-5", "claude-haiku-5-5", "claude-opus-5-5"])
          // The child's request holds its definition's instructions and the delegation prompt; the parent's last one its answer.
          expect(bodyOf(requests[1])).toContain("You review files. Answer in one sentence.")
          expect(bodyOf(requests[1])).toContain("Review notes.txt")
          expect(requests[2]?.toolResultIds).toEqual(["toolu_01Delegate"])
          expect(bodyOf(requests[2])).toContain("notes.txt is fine.")

          // Both logs say which model each session asked.
          const sessions = yield* listedSessions(home)
          expect(sessions).toHaveLength(2)
          const models = new Map<string, unknown>()
          for (const sessionId of sessions) {
            const exported = yield* Effect.promise(() => runCli(["sessions", "export", sessionId], { env: { CUSTOM_AGENT_HOME: home } }))
            const created = parseEventLines(exported.stdout).find((event) => event.type === "session.created")
            models.set(created?.type === "session.created" && created.payload.parent !== undefined ? "child" : "parent", created?.payload)
          }
          expect(models.get("parent")).toMatchObject({ model: "anthropic/claude-opus-5-5" })
          expect(models.get("child")).toMatchObject({ model: "anthropic/claude-haiku-5-5", parent: { agent: "reviewer" } })
        })
      )
    ))

  it("run --model openai/gpt-4.1 with the user's reviewer on haiku and no ANTHROPIC_API_KEY: the task fails with why, the parent carries on", () =>
    Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const server = yield* Replay.start(fixture("openai/subagent-model-unavailable.json"))
          const home = temps.dir("subagent-model-home-")
          const config = temps.dir("subagent-model-config-")
          reviewerIn(join(config, "agents"), "haiku")
          const env = { CUSTOM_AGENT_HOME: home, CUSTOM_AGENT_CONFIG_HOME: config, OPENAI_BASE_URL: `${server.url}/v1` }
          const result = yield* Effect.promise(() => runCli(["run", "Have notes.txt reviewed", "--model", "openai/gpt-4.1"], { env, cwd: workspace() }))
          expect(result.code).toBe(0)
          expect(result.stdout).toContain("The reviewer could not start; notes.txt looks fine to me.")
          const requests = yield* server.requests
          expect(requests).toHaveLength(2)
          // The model read why: the definition, the model it names and the missing key.
          expect(bodyOf(requests[1])).toMatch(/The reviewer subagent could not run: its definition \(.*reviewer\.md\) names the model anthropic\/claude-haiku-5-5, which cannot be used: ANTHROPIC_API_KEY is not set/)
          expect(yield* listedSessions(home)).toHaveLength(1)
        })
      )
    ))
})
