import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Stream } from "effect"
import { mkdtempSync, readFileSync, realpathSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SessionEngine } from "../../../src/core/SessionEngine.js"
import type { AgentEvent } from "../../../src/domain/events.js"
import { noEventBus } from "../../../src/layers/event-bus/none.js"
import * as MemoryStore from "../../../src/layers/event-store/memory.js"
import { sandboxOff } from "../../../src/layers/sandbox/off.js"
import { exportSessionTrace } from "../../../src/layers/telemetry/export.js"
import { withTracing } from "../../../src/layers/telemetry/live.js"
import { spanTraceparent } from "../../../src/layers/telemetry/span-ids.js"
import { localTools } from "../../../src/layers/tools/local.js"
import type { Script } from "../../../src/layers/model/scripted.js"
import { EventBus } from "../../../src/services/EventBus.js"
import { engineLayer, replayAll } from "../../support/engine-harness.js"
import { jsonSpans, protobufSpans, type ReceivedSpan, startOtlpReceiver } from "../../support/otlp-receiver.js"
import { hooksLayer, writeScript, writeSettings } from "../../support/hooks-fixture.js"
import { storeCases } from "../../support/store-cases.js"

const env = (vars: Record<string, string>) => Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(vars))))

/** A turn that asks for a shell command (a person allows it), then answers. */
const script: Script = {
  responses: [
    { chunks: [{ text: "Let me look." }, { toolCall: { name: "shell", input: { command: "echo \"tp=$TRACEPARENT\"" }, id: "call-1" } }], usage: { inputTokens: 120, outputTokens: 30, cacheReadTokens: 40 } },
    { chunks: [{ text: "The secret answer is 42." }], usage: { inputTokens: 200, outputTokens: 12 } }
  ]
}

const runTurn = (store: (typeof storeCases)[number]) =>
  Effect.gen(function* () {
    const engine = yield* SessionEngine
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), "otel-")))
    const { header } = yield* engine.createSession({ cwd, client: "test" })
    yield* Stream.runDrain(engine.runTurn({ sessionId: header.sessionId, content: "a private prompt" }))
    return yield* replayAll(header.sessionId)
  }).pipe(
    Effect.provide(
      engineLayer(store.fresh(), script, { tools: localTools(sandboxOff), answers: [{ decision: "allow", scope: "once", by: "user" }], eventBus: withTracing(noEventBus, "9.9.9") })
    )
  )

const byName = (spans: ReadonlyArray<ReceivedSpan>, prefix: string) => spans.filter((span) => span.name.startsWith(prefix))
const tree = (spans: ReadonlyArray<ReceivedSpan>) =>
  [...spans].sort((a, b) => a.spanId.localeCompare(b.spanId)).map(({ resource: _, ...span }) => span)

for (const store of storeCases) {
  describe(`OpenTelemetry traces from the log (${store.name} store)`, () => {
    it.live("a turn with a tool call yields invoke_agent, then chat, then execute_tool, linked; export --otlp sends the same tree", () =>
      Effect.gen(function* () {
        const receiver = yield* startOtlpReceiver()
        const vars = {
          OTEL_EXPORTER_OTLP_ENDPOINT: `${receiver.endpoint}/`,
          OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
          OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20sekret,x-team=agents",
          OTEL_SERVICE_NAME: "agent-under-test",
          OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=test"
        }
        // The engine's layer is closed when the turn is done: what was queued is flushed then.
        const log: ReadonlyArray<AgentEvent> = yield* runTurn(store).pipe(env(vars))
        const live = jsonSpans(receiver.requests)
        expect(receiver.requests.every((r) => r.path === "/v1/traces" && r.headers["authorization"] === "Bearer sekret" && r.headers["x-team"] === "agents")).toBe(true)

        const [agent] = byName(live, "invoke_agent")
        const chats = byName(live, "chat")
        const [tool] = byName(live, "execute_tool")
        expect(live).toHaveLength(4)
        expect(agent?.parentSpanId).toBeUndefined()
        expect(chats).toHaveLength(2)
        for (const child of [...chats, tool]) {
          expect(child?.traceId).toBe(agent?.traceId)
          expect(child?.parentSpanId).toBe(agent?.spanId)
        }
        // invoke_agent, then chat, then execute_tool, by start; each inside its parent.
        const start = (span: ReceivedSpan | undefined) => BigInt(span?.startTimeUnixNano ?? "0")
        const end = (span: ReceivedSpan | undefined) => BigInt(span?.endTimeUnixNano ?? "0")
        expect(start(agent) <= start(chats[0])).toBe(true)
        expect(start(chats[0]) <= start(tool)).toBe(true)
        expect(start(tool) <= start(chats[1])).toBe(true)
        expect(end(chats[1]) <= end(agent)).toBe(true)

        const sessionId = log[0]?.sessionId
        const turnId = log.find((e) => e.type === "turn.started")?.turnId
        expect(agent?.attributes).toMatchObject({
          "gen_ai.operation.name": "invoke_agent",
          "gen_ai.agent.name": "custom-agent",
          "gen_ai.conversation.id": sessionId,
          "custom_agent.session.id": sessionId,
          "custom_agent.turn.id": turnId,
          "custom_agent.turn.stop_reason": "final",
          "gen_ai.usage.input_tokens": 320,
          "gen_ai.usage.output_tokens": 42
        })
        expect(chats[0]?.name).toBe("chat scripted")
        expect(chats[0]?.attributes).toMatchObject({
          "gen_ai.operation.name": "chat",
          "gen_ai.provider.name": "scripted",
          "gen_ai.request.model": "scripted",
          "gen_ai.usage.input_tokens": 120,
          "gen_ai.usage.output_tokens": 30,
          "gen_ai.usage.cache_read.input_tokens": 40,
          "gen_ai.response.finish_reasons": ["tool_calls"]
        })
        expect(chats[1]?.attributes["gen_ai.response.finish_reasons"]).toEqual(["final"])
        expect(tool?.name).toBe("execute_tool shell")
        expect(tool?.attributes).toMatchObject({ "gen_ai.tool.name": "shell", "gen_ai.tool.call.id": "call-1", "custom_agent.permission.decision": "allow", "custom_agent.permission.decided_by": "user" })
        expect(tool?.events.map((e) => e.name)).toEqual(["permission.requested", "permission.resolved", "tool.started"])
        expect(tool?.events[1]?.attributes).toMatchObject({ "custom_agent.permission.decision": "allow", "custom_agent.permission.decided_by": "user", "custom_agent.permission.scope": "once" })
        expect(agent?.resource).toMatchObject({ "service.name": "agent-under-test", "service.version": "9.9.9", "deployment.environment": "test" })

        // Content stays out unless asked for: no prompt, no answer, no tool input or output.
        const everything = JSON.stringify(live)
        expect(everything).not.toContain("private prompt")
        expect(everything).not.toContain("secret answer")
        expect(everything).not.toContain("TRACEPARENT")

        // The shell command ran with its own span as TRACEPARENT.
        const output = log.find((e) => e.type === "tool.completed")
        expect(output?.type === "tool.completed" ? output.payload.output : "").toContain(`tp=${spanTraceparent(sessionId ?? "", turnId ?? "", "call-1")}`)
        expect(`00-${tool?.traceId}-${tool?.spanId}-01`).toBe(spanTraceparent(sessionId ?? "", turnId ?? "", "call-1"))

        // The same session re-exported from its stored log: the same spans, ids and all.
        const liveRequests = receiver.requests.length
        const sent = yield* exportSessionTrace(log, "9.9.9").pipe(env(vars))
        expect(sent).toMatchObject({ spans: 4, traces: 1 })
        const exported = jsonSpans(receiver.requests.slice(liveRequests))
        expect(tree(exported)).toEqual(tree(live))
      }).pipe(Effect.scoped))
  })
}

describe("OpenTelemetry settings", () => {
  it.live("with no endpoint set, tracing is off and the bus is the inner one, untouched", () =>
    Effect.gen(function* () {
      const inner = yield* Effect.provide(EventBus, noEventBus)
      const bus = yield* Effect.provide(EventBus, withTracing(noEventBus, "1")).pipe(env({ OTEL_SERVICE_NAME: "x" }))
      expect(bus).toBe(inner)
      const disabled = yield* Effect.provide(EventBus, withTracing(noEventBus, "1")).pipe(env({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9", OTEL_SDK_DISABLED: "true" }))
      expect(disabled).toBe(inner)
    }).pipe(Effect.scoped))

  it.live("the default protocol is http/protobuf: the same tree arrives encoded", () =>
    Effect.gen(function* () {
      const receiver = yield* startOtlpReceiver()
      const log = yield* runTurn(storeCases[0]!).pipe(env({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.endpoint}/custom/traces` }))
      expect(receiver.requests.every((r) => r.contentType === "application/x-protobuf" && r.path === "/custom/traces")).toBe(true)
      const spans = protobufSpans(receiver.requests)
      expect(spans.map((s) => s.name).sort()).toEqual(["chat scripted", "chat scripted", "execute_tool shell", "invoke_agent custom-agent"])
      const root = spans.find((s) => s.name.startsWith("invoke_agent"))
      expect(spans.filter((s) => s !== root).every((s) => s.parentSpanId === root?.spanId && s.traceId === root?.traceId)).toBe(true)
      expect(log.at(-1)?.type).toBe("turn.completed")
    }).pipe(Effect.scoped))

  it.live("with content capture on, prompts, answers and tool input and output are attributes", () =>
    Effect.gen(function* () {
      const receiver = yield* startOtlpReceiver()
      yield* runTurn(storeCases[0]!).pipe(
        env({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json", OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true" })
      )
      const spans = jsonSpans(receiver.requests)
      expect(String(byName(spans, "invoke_agent")[0]?.attributes["gen_ai.input.messages"])).toContain("a private prompt")
      expect(String(byName(spans, "chat")[1]?.attributes["gen_ai.output.messages"])).toContain("The secret answer is 42.")
      expect(String(byName(spans, "execute_tool")[0]?.attributes["gen_ai.tool.call.arguments"])).toContain("TRACEPARENT")
      expect(String(byName(spans, "execute_tool")[0]?.attributes["gen_ai.tool.call.result"])).toContain("tp=00-")
    }).pipe(Effect.scoped))

  it.live("a collector that refuses spans costs a warning, never the turn; an export says what failed", () =>
    Effect.gen(function* () {
      const receiver = yield* startOtlpReceiver({ status: 503 })
      const vars = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" }
      const log = yield* runTurn(storeCases[0]!).pipe(env(vars))
      expect(log.at(-1)).toMatchObject({ type: "turn.completed", payload: { stopReason: "final" } })
      expect(receiver.requests.length).toBeGreaterThan(0)
      const error = yield* Effect.flip(exportSessionTrace(log, "1").pipe(env(vars)))
      expect(error.message).toContain("HTTP 503")
      expect(error.message).toContain(receiver.endpoint)
    }).pipe(Effect.scoped))

  it.live("bad settings are refused with what is wrong; an export with no endpoint says how to set one", () =>
    Effect.gen(function* () {
      const grpc = yield* Effect.flip(Effect.provide(EventBus, withTracing(noEventBus, "1")).pipe(env({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://x", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })))
      expect(grpc.message).toMatch(/protocol grpc is not supported/)
      const headers = yield* Effect.flip(Effect.provide(EventBus, withTracing(noEventBus, "1")).pipe(env({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://x", OTEL_EXPORTER_OTLP_HEADERS: "novalue" })))
      expect(headers.message).toMatch(/OTEL_EXPORTER_OTLP_HEADERS/)
      const none = yield* Effect.flip(exportSessionTrace([], "1").pipe(env({})))
      expect(none.message).toMatch(/OTEL_EXPORTER_OTLP_ENDPOINT/)
    }).pipe(Effect.scoped))
})

describe("OpenTelemetry context for hooks", () => {
  it.live("a hook runs with TRACEPARENT: a tool's hooks with the call's span, a prompt's with the turn's", () =>
    Effect.gen(function* () {
      const receiver = yield* startOtlpReceiver()
      const configDir = realpathSync(mkdtempSync(join(tmpdir(), "otel-hooks-")))
      const seen = join(configDir, "seen")
      const hook = writeScript(join(configDir, "hook.sh"), `#!/bin/sh\ncat > /dev/null\necho "$1 $TRACEPARENT" >> ${seen}\n`)
      writeSettings(join(configDir, "settings.json"), {
        UserPromptSubmit: [{ hooks: [{ type: "command", command: `${hook} prompt` }] }],
        PostToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: `${hook} post` }] }]
      })
      const log = yield* Effect.gen(function* () {
        const engine = yield* SessionEngine
        const cwd = realpathSync(mkdtempSync(join(tmpdir(), "otel-")))
        const { header } = yield* engine.createSession({ cwd, client: "test" })
        yield* Stream.runDrain(engine.runTurn({ sessionId: header.sessionId, content: "go" }))
        return yield* replayAll(header.sessionId)
      }).pipe(
        Effect.provide(
          engineLayer(MemoryStore.layer, script, {
            tools: localTools(sandboxOff),
            answers: [{ decision: "allow", scope: "once", by: "user" }],
            eventBus: withTracing(noEventBus, "9.9.9"),
            hooks: hooksLayer(configDir)
          })
        ),
        env({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" })
      )
      const sessionId = log[0]?.sessionId ?? ""
      const turnId = log.find((e) => e.type === "turn.started")?.turnId ?? ""
      expect(readFileSync(seen, "utf8")).toBe(`prompt ${spanTraceparent(sessionId, turnId)}\npost ${spanTraceparent(sessionId, turnId, "call-1")}\n`)
      const [agent] = byName(jsonSpans(receiver.requests), "invoke_agent")
      expect(spanTraceparent(sessionId, turnId)).toBe(`00-${agent?.traceId}-${agent?.spanId}-01`)
    }).pipe(Effect.scoped)
  )
})
