import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Either, Layer } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { modelsLayer } from "../../src/app/model.js"
import { ModelGateway } from "../../src/services/ModelGateway.js"
import { ModelResolver } from "../../src/services/ModelResolver.js"

/** A settings file that does not exist: the packaged price table. */
const noSettings = () => join(mkdtempSync(join(tmpdir(), "models-")), "settings.json")

const withEnv = (entries: ReadonlyArray<readonly [string, string]>) => Effect.withConfigProvider(ConfigProvider.fromMap(new Map(entries)))

describe("the app's models: the engine's own and those agent definitions name", () => {
  it.scoped("under a real model, each id gets a gateway of its own provider and limits", () =>
    Effect.gen(function* () {
      const main = yield* ModelGateway
      const resolver = yield* ModelResolver
      expect(main.info.id).toBe("openai/gpt-4.1")
      const haiku = yield* resolver.resolve("anthropic/claude-haiku-4-5").pipe(withEnv([["ANTHROPIC_API_KEY", "sk-ant-test"]]))
      expect(haiku.info).toMatchObject({ id: "anthropic/claude-haiku-4-5", provider: "anthropic", contextWindow: 200_000 })
      const local = yield* resolver.resolve("openai/qwen3:8b").pipe(withEnv([["OPENAI_BASE_URL", "http://127.0.0.1:1/v1"]]))
      expect(local.info).toMatchObject({ id: "openai/qwen3:8b", contextWindow: 32_768 })
    }).pipe(Effect.provide(modelsLayer({ spec: "openai/gpt-4.1" }, noSettings())))
  )

  it.scoped("openai/<id> speaks Responses on OpenAI's own endpoint and Chat Completions on another server; OPENAI_API overrides; openai-compatible/<id> always Chat Completions", () =>
    Effect.gen(function* () {
      const resolver = yield* ModelResolver
      const byDefault = yield* resolver.resolve("openai/gpt-5.4").pipe(withEnv([]))
      expect(byDefault.info).toMatchObject({ id: "openai/gpt-5.4", provider: "openai", api: "responses" })
      const named = yield* resolver.resolve("openai/gpt-5.4").pipe(withEnv([["OPENAI_BASE_URL", "https://API.openai.com/v1/"]]))
      expect(named.info.api).toBe("responses")
      const elsewhere = yield* resolver.resolve("openai/gpt-5.4").pipe(withEnv([["OPENAI_BASE_URL", "https://openrouter.ai/api/v1"]]))
      expect(elsewhere.info).toMatchObject({ id: "openai/gpt-5.4", api: "chat-completions" })
      const forced = yield* resolver.resolve("openai/gpt-5.4").pipe(withEnv([["OPENAI_BASE_URL", "http://127.0.0.1:4000/v1"], ["OPENAI_API", "responses"]]))
      expect(forced.info.api).toBe("responses")
      const asked = yield* resolver.resolve("openai/gpt-5.4").pipe(withEnv([["OPENAI_API", "chat-completions"]]))
      expect(asked.info.api).toBe("chat-completions")
      const wrong = yield* Effect.either(resolver.resolve("openai/gpt-5.4").pipe(withEnv([["OPENAI_API", "completions"]])))
      expect(Either.isLeft(wrong) && wrong.left.message).toContain("OPENAI_API must be responses or chat-completions")
      const compatible = yield* resolver.resolve("openai-compatible/gpt-5.4").pipe(withEnv([["OPENAI_API", "responses"]]))
      expect(compatible.info).toMatchObject({ id: "openai-compatible/gpt-5.4", provider: "openai", api: "chat-completions" })
    }).pipe(Effect.provide(modelsLayer({ spec: "scripted" }, noSettings())))
  )

  it.scoped("a model that cannot be built is ModelUnavailable, keeping why and its cause", () =>
    Effect.gen(function* () {
      const resolver = yield* ModelResolver
      const missingKey = yield* Effect.either(resolver.resolve("anthropic/claude-haiku-5-5").pipe(withEnv([])))
      expect(Either.isLeft(missingKey) && missingKey.left).toMatchObject({
        _tag: "ModelUnavailable",
        model: "anthropic/claude-haiku-5-5",
        message: "ANTHROPIC_API_KEY is not set",
        cause: { _tag: "ModelConfigError", variable: "ANTHROPIC_API_KEY" }
      })
      const unknown = yield* Effect.either(resolver.resolve("gemini/pro"))
      expect(Either.isLeft(unknown) && unknown.left.message).toContain("unknown model")
    }).pipe(Effect.provide(modelsLayer({ spec: "openai/gpt-4.1" }, noSettings())))
  )

  it.scoped("under the scripted model with a script, the script plays every model, so tests and demos stay offline", () => {
    const script = join(mkdtempSync(join(tmpdir(), "models-")), "script.json")
    writeFileSync(script, JSON.stringify({ responses: ["Hi."] }))
    return Effect.gen(function* () {
      const main = yield* ModelGateway
      const resolver = yield* ModelResolver
      const child = yield* resolver.resolve("anthropic/claude-haiku-5-5").pipe(withEnv([]))
      expect(child).toBe(main)
    }).pipe(Effect.provide(modelsLayer({ spec: "scripted", scriptPath: script }, noSettings())))
  })

  it.scoped("the echo model (no script) plays no other: a session's or a definition's model is built for real", () =>
    Effect.gen(function* () {
      const resolver = yield* ModelResolver
      const opus = yield* resolver.resolve("anthropic/claude-opus-5-5").pipe(withEnv([["ANTHROPIC_API_KEY", "sk-ant-test"]]))
      expect(opus.info).toMatchObject({ id: "anthropic/claude-opus-5-5", provider: "anthropic" })
      const missingKey = yield* Effect.either(resolver.resolve("anthropic/claude-opus-5-5").pipe(withEnv([])))
      expect(Either.isLeft(missingKey) && missingKey.left.message).toBe("ANTHROPIC_API_KEY is not set")
    }).pipe(Effect.provide(modelsLayer({ spec: "scripted" }, noSettings())))
  )

  it.effect("a malformed price settings file stops start-up, naming the file", () =>
    Effect.gen(function* () {
      const dir = mkdtempSync(join(tmpdir(), "models-"))
      const file = join(dir, "settings.json")
      writeFileSync(file, '{"prices": 3}')
      const built = yield* Effect.either(Effect.scoped(Layer.build(modelsLayer({ spec: "scripted" }, file))))
      expect(Either.isLeft(built) && built.left.message).toContain(file)
    })
  )
})
