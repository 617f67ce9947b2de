import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Either, Option } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { chooseModel } from "../../src/app/model-choice.js"

const settings = (json?: unknown) => {
  const file = join(mkdtempSync(join(tmpdir(), "model-choice-")), "settings.json")
  if (json !== undefined) writeFileSync(file, JSON.stringify(json))
  return file
}

const withEnv = (entries: ReadonlyArray<readonly [string, string]>) => Effect.withConfigProvider(ConfigProvider.fromMap(new Map(entries)))
const key = [["ANTHROPIC_API_KEY", "sk-ant-test"]] as const

describe("the model a new session gets", () => {
  it.effect("--model, then --script, then settings.json's \"model\", then Claude when ANTHROPIC_API_KEY is set, then the scripted model", () =>
    Effect.gen(function* () {
      const none = Option.none<string>()
      expect(yield* chooseModel({ flag: Option.some("openai/gpt-4.1"), script: true, settingsFile: settings({ model: "anthropic" }) }).pipe(withEnv(key))).toMatchObject({
        spec: "openai/gpt-4.1",
        chosen: true
      })
      expect(yield* chooseModel({ flag: none, script: true, settingsFile: settings({ model: "anthropic" }) }).pipe(withEnv(key))).toMatchObject({
        spec: "scripted",
        chosen: true
      })
      const fromSettings = yield* chooseModel({ flag: none, script: false, settingsFile: settings({ model: "anthropic/claude-opus-5-5", prices: {} }) }).pipe(withEnv(key))
      expect(fromSettings).toMatchObject({ spec: "anthropic/claude-opus-5-5", chosen: true })
      const compatible = yield* chooseModel({ flag: none, script: false, settingsFile: settings({ model: "openai-compatible/qwen3:8b" }) }).pipe(withEnv(key))
      expect(compatible).toMatchObject({ spec: "openai-compatible/qwen3:8b", chosen: true })
      expect(yield* chooseModel({ flag: none, script: false, settingsFile: settings({}) }).pipe(withEnv(key))).toMatchObject({ spec: "anthropic", chosen: false })
      const fallback = yield* chooseModel({ flag: none, script: false, settingsFile: settings() }).pipe(withEnv([]))
      expect(fallback).toMatchObject({ spec: "scripted", chosen: false })
      expect(fallback.reason).toContain("no provider key set (ANTHROPIC_API_KEY)")
    })
  )

  it.effect("a \"model\" that is no model stops start-up, naming the file", () =>
    Effect.gen(function* () {
      const file = settings({ model: "gemini/pro" })
      const chosen = yield* Effect.either(chooseModel({ flag: Option.none(), script: false, settingsFile: file }).pipe(withEnv([])))
      expect(Either.isLeft(chosen) && chosen.left.message).toMatch(/settings\.json: model: unknown model "gemini\/pro"/)
    })
  )
})
