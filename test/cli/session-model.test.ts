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

const plainText = resolve(import.meta.dirname, "../fixtures/anthropic/plain-text.json")
const echoLine = /the scripted echo model answers/g

const modelsAsked = (requests: ReadonlyArray<Replay.RecordedRequest>) =>
  requests.map((request) => {
    const body = request.body
    return typeof body === "object" && body !== null && "model" in body ? body.model : undefined
  })

/** A data directory, and a config directory with `settings` as its settings.json when given. */
const places = (settings?: unknown) => {
  const config = temps.dir("session-model-config-")
  if (settings !== undefined) {
    mkdirSync(config, { recursive: true })
    writeFileSync(join(config, "settings.json"), JSON.stringify(settings))
  }
  return { CUSTOM_AGENT_HOME: temps.dir("session-model-home-"), CUSTOM_AGENT_CONFIG_HOME: config }
}

const sessionOf = (stderr: string) => {
  const id = /session (ses_\w+)/.exec(stderr)?.[1]
  if (id === undefined) throw new Error(`no session id in: ${stderr}`)
  return id
}

const run = (args: ReadonlyArray<string>, env: Record<string, string>) => Effect.promise(() => runCli(["run", ...args], { env }))

describe("the session keeps its model, through the CLI", { timeout: 90_000 }, () => {
  it("created with --model anthropic/<id>, continued without --model: the recorded model answers; --model changes it, on the record", () =>
    Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const where = places()
          const first = yield* Replay.start(plainText)
          const created = yield* run(["say hello", "--model", "anthropic/claude-opus-5-5"], { ...where, ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: first.url })
          expect(created.stderr).not.toContain("custom-agent:")
          expect(created.stdout).toBe("Hello, world!\n")
          const sessionId = sessionOf(created.stderr)

          // A later process, no --model: the session's model is asked, not the default Claude nor the echo.
          const second = yield* Replay.start(plainText)
          const continued = yield* run(["and again", "--session", sessionId], { ...where, ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: second.url })
          expect(continued.stderr).not.toContain("custom-agent:")
          expect(continued.code).toBe(0)
          expect(continued.stdout).toBe("Hello, world!\n")
          expect(modelsAsked(yield* second.requests)).toEqual(["claude-opus-5-5"])
          expect(continued.stderr).not.toMatch(echoLine)

          // --model on a later turn makes another the session's; asked for, the echo says nothing about itself.
          const changed = yield* run(["now offline", "--session", sessionId, "--model", "scripted"], where)
          expect(changed.code).toBe(0)
          expect(changed.stdout).toContain("This is the scripted model")
          expect(changed.stderr).not.toMatch(echoLine)

          const exported = yield* Effect.promise(() => runCli(["sessions", "export", sessionId], { env: where }))
          const events = parseEventLines(exported.stdout)
          expect(events.flatMap((e) => (e.type === "session.model_changed" ? [e.payload] : []))).toEqual([{ model: "scripted", by: "cli" }])
          expect(events.flatMap((e) => (e.type === "model.completed" ? [e.payload.model] : []))).toEqual([
            "anthropic/claude-opus-5-5",
            "anthropic/claude-opus-5-5",
            "scripted"
          ])
          const shown = yield* Effect.promise(() => runCli(["sessions", "show", sessionId], { env: where }))
          expect(shown.stdout).toContain("anthropic/claude-opus-5-5")
          expect(shown.stdout).toContain("model: scripted (set by cli)")

          // Continued again without --model, a key set: the session's model (now the echo) answers, and one line says so.
          const third = yield* Replay.start(plainText)
          const echoed = yield* run(["one more", "--session", sessionId], { ...where, ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: third.url })
          expect(echoed.code).toBe(0)
          expect(echoed.stdout).toContain("This is the scripted model")
          expect(echoed.stderr.match(echoLine)).toHaveLength(1)
          expect(echoed.stderr).toContain(`it is session ${sessionId}'s model`)
          expect(yield* third.requests).toHaveLength(0)
        })
      )
    ))

  it("a new session's default: settings.json's \"model\", else Claude when ANTHROPIC_API_KEY is set, else the echo model with one line saying why", () =>
    Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const fromSettings = yield* Replay.start(plainText)
          const configured = yield* run(["say hello"], {
            ...places({ model: "anthropic/claude-haiku-5-5" }),
            ANTHROPIC_API_KEY: "sk-ant-test",
            ANTHROPIC_BASE_URL: fromSettings.url
          })
          expect(configured.stderr).not.toContain("custom-agent:")
          expect(configured.stdout).toBe("Hello, world!\n")
          expect(modelsAsked(yield* fromSettings.requests)).toEqual(["claude-haiku-5-5"])

          const fromKey = yield* Replay.start(plainText)
          const keyed = yield* run(["say hello"], { ...places(), ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: fromKey.url })
          expect(keyed.stdout).toBe("Hello, world!\n")
          expect(modelsAsked(yield* fromKey.requests)).toEqual(["claude-sonnet-5-5"])
          expect(keyed.stderr).not.toMatch(echoLine)

          const bare = yield* run(["say hello"], places())
          expect(bare.code).toBe(0)
          expect(bare.stdout).toContain("This is the scripted model")
          expect(bare.stderr.match(echoLine)).toHaveLength(1)
          expect(bare.stderr).toContain("no provider key set (ANTHROPIC_API_KEY)")

          // Asked for by name, the echo model needs no notice.
          const named = yield* run(["say hello", "--model", "scripted"], places())
          expect(named.stderr).not.toMatch(echoLine)
        })
      )
    ))
})
