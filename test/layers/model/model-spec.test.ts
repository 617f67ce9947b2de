import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { DEFAULT_ANTHROPIC_MODEL, parseModelSpec, selectionId } from "../../../src/layers/model/model-spec.js"

const parsed = (spec: string) => Either.getOrThrow(parseModelSpec(spec))
const failure = (spec: string) => Either.getOrThrowWith(Either.flip(parseModelSpec(spec)), () => new Error(`${spec} parsed`))

describe("--model spec", () => {
  it("parses the providers", () => {
    expect(parsed("scripted")).toEqual({ _tag: "Scripted" })
    expect(parsed("anthropic")).toEqual({ _tag: "Anthropic", model: DEFAULT_ANTHROPIC_MODEL })
    expect(parsed("anthropic/claude-opus-5-5")).toEqual({ _tag: "Anthropic", model: "claude-opus-5-5" })
    expect(parsed("openai/gpt-4.1")).toEqual({ _tag: "OpenAI", model: "gpt-4.1" })
    expect(parsed("openai-compatible/llama3.1")).toEqual({ _tag: "OpenAICompatible", model: "llama3.1" })
  })

  it("keeps slashes and colons of the model id", () => {
    expect(parsed("openai/meta-llama/Llama-3.1-8B-Instruct")).toEqual({ _tag: "OpenAI", model: "meta-llama/Llama-3.1-8B-Instruct" })
    expect(parsed("openai/qwen3:8b")).toEqual({ _tag: "OpenAI", model: "qwen3:8b" })
  })

  it("rejects unknown providers, missing ids and bare openai with a message that says what to write", () => {
    expect(failure("gemini/pro").message).toContain("anthropic/<model-id>")
    expect(failure("anthropic/").message).toContain("needs a model id")
    expect(failure("openai-compatible").message).toContain("needs a model id")
    expect(failure("openai").message).toContain("openai/")
    expect(failure("openai/a b").message).toContain("whitespace")
    expect(failure("").message).toContain("unknown model")
  })

  it("names a selection the way ModelInfo.id does", () => {
    expect(selectionId(parsed("anthropic"))).toBe(`anthropic/${DEFAULT_ANTHROPIC_MODEL}`)
    expect(selectionId(parsed("openai/qwen3:8b"))).toBe("openai/qwen3:8b")
    expect(selectionId(parsed("openai-compatible/qwen3:8b"))).toBe("openai-compatible/qwen3:8b")
    expect(selectionId(parsed("scripted"))).toBe("scripted")
  })
})
