import { describe, expect, it } from "@effect/vitest"
import { modelChoices, modelToSet } from "../../web/src/model-choices.js"

describe("the model picker", () => {
  it("suggests the session's model first, then other sessions', the provider defaults and priced models, each once", () => {
    const choices = modelChoices("openai/llama3.1", ["anthropic/claude-opus-4-5", undefined, "openai/llama3.1"])
    expect(choices.slice(0, 3)).toEqual(["openai/llama3.1", "anthropic/claude-opus-4-5", "anthropic"])
    expect(choices).toContain("scripted")
    expect(choices).toContain("openai/gpt-4.1")
    expect(new Set(choices).size).toBe(choices.length)
  })

  it("sets a model only when one was picked and it is not the session's", () => {
    expect(modelToSet("", "scripted")).toBeUndefined()
    expect(modelToSet("  ", "scripted")).toBeUndefined()
    expect(modelToSet("scripted", "scripted")).toBeUndefined()
    expect(modelToSet(" anthropic/claude-opus-4-5 ", "scripted")).toBe("anthropic/claude-opus-4-5")
    expect(modelToSet("anthropic", undefined)).toBe("anthropic")
  })
})
