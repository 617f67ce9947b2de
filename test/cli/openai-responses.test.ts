import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { runCli } from "../support/cli.js"
import { parseEventLines } from "../support/events.js"
import * as Replay from "../support/replay-server.js"
import { makeTemp } from "../support/temp-dirs.js"

const temps = makeTemp()
afterAll(temps.cleanup)

const fixture = resolve(import.meta.dirname, "../fixtures/openai-responses/tool-round-trip.json")

describe("run --model openai/<id> on the Responses API, through the CLI", { timeout: 60_000 }, () => {
  it("the session records the api; the encrypted reasoning item is in the log and goes back on the next step", () =>
    Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const server = yield* Replay.start(fixture)
          const home = temps.dir("responses-home-")
          // The replay server is not api.openai.com: OPENAI_API says it serves the Responses API.
          const env = {
            CUSTOM_AGENT_HOME: home,
            CUSTOM_AGENT_CONFIG_HOME: temps.dir("responses-config-"),
            OPENAI_API_KEY: "sk-test",
            OPENAI_BASE_URL: `${server.url}/v1`,
            OPENAI_API: "responses"
          }
          const cwd = temps.dir("responses-cwd-")
          writeFileSync(join(cwd, "README.md"), "hello from the readme\n")
          const result = yield* Effect.promise(() => runCli(["run", "What does README.md say?", "--model", "openai/gpt-5.4"], { env, cwd }))
          expect(result.stderr).not.toContain("custom-agent:")
          expect(result.code).toBe(0)
          expect(result.stdout).toContain("The README says hello.")

          const requests = yield* server.requests
          expect(requests.map((request) => request.path)).toEqual(["/v1/responses", "/v1/responses"])
          expect(requests[1]?.toolResultIds).toEqual(["call_RoundTrip01"])
          expect(requests[1]?.body).toMatchObject({
            store: false,
            input: [
              { role: "user", content: "What does README.md say?" },
              { type: "reasoning", encrypted_content: "gAAAAB-encrypted-tool-step" },
              { role: "assistant", content: "Reading README.md." },
              { type: "function_call", call_id: "call_RoundTrip01", name: "read_file" },
              { type: "function_call_output", call_id: "call_RoundTrip01" }
            ]
          })

          const listed = yield* Effect.promise(() => runCli(["sessions", "list", "--all"], { env: { CUSTOM_AGENT_HOME: home } }))
          const [sessionId] = listed.stdout.match(/\bses_\w+/g) ?? []
          const exported = yield* Effect.promise(() => runCli(["sessions", "export", sessionId ?? "missing"], { env: { CUSTOM_AGENT_HOME: home } }))
          const events = parseEventLines(exported.stdout)
          expect(events[0]?.payload).toMatchObject({ model: "openai/gpt-5.4", api: "responses" })
          const encrypted = events.flatMap((event) =>
            event.type === "model.thinking_delta" && event.payload.encryptedReasoning !== undefined ? [event.payload.encryptedReasoning] : []
          )
          expect(encrypted).toEqual(["gAAAAB-encrypted-tool-step", "gAAAAB-encrypted-answer-step"])
        })
      )
    ))
})
