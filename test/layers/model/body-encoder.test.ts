import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import type { AssistantPart, ConversationMessage, ModelRequest, ToolDefinition, UserPart } from "../../../src/domain/model.js"
import { type AnthropicRequestOptions, makeAnthropicBodyEncoder, toAnthropicParams } from "../../../src/layers/model/anthropic-request.js"
import { type ChatRequestOptions, makeChatBodyEncoder, toChatRequest } from "../../../src/layers/model/openai-request.js"

const text = FastCheck.oneof(FastCheck.constant(""), FastCheck.constant("  "), FastCheck.string(), FastCheck.constant("héllo ☕ \"quoted\"\n"))
const json = FastCheck.jsonValue().map((value): unknown => JSON.parse(JSON.stringify(value)))

const userPart: FastCheck.Arbitrary<UserPart> = FastCheck.oneof(
  text.map((t) => ({ _tag: "text" as const, text: t })),
  FastCheck.record({ toolCallId: FastCheck.string({ minLength: 1 }), output: text, isError: FastCheck.boolean() }).map((r) => ({ _tag: "tool_result" as const, ...r }))
)
const assistantPart: FastCheck.Arbitrary<AssistantPart> = FastCheck.oneof(
  text.map((t) => ({ _tag: "text" as const, text: t })),
  FastCheck.record(
    { text, signature: FastCheck.option(text, { nil: undefined }), redacted: FastCheck.option(text, { nil: undefined }) },
    { requiredKeys: ["text"] }
  ).map((r) => ({ _tag: "thinking" as const, ...r })),
  FastCheck.record({ toolCallId: FastCheck.string({ minLength: 1 }), name: FastCheck.string({ minLength: 1 }), input: json }).map((r) => ({ _tag: "tool_call" as const, ...r }))
)
const message: FastCheck.Arbitrary<ConversationMessage> = FastCheck.oneof(
  FastCheck.array(userPart, { maxLength: 4 }).map((content) => ({ role: "user" as const, content })),
  FastCheck.array(assistantPart, { maxLength: 4 }).map((content) => ({ role: "assistant" as const, content }))
)
const tool: FastCheck.Arbitrary<ToolDefinition> = FastCheck.record({
  name: FastCheck.string({ minLength: 1 }),
  description: text,
  inputSchema: FastCheck.dictionary(FastCheck.string(), json)
})
const request: FastCheck.Arbitrary<ModelRequest> = FastCheck.record({
  sessionId: FastCheck.constant("s1"),
  system: text,
  messages: FastCheck.array(message, { maxLength: 8 }),
  tools: FastCheck.array(tool, { maxLength: 3 })
})
const anthropicOptions: FastCheck.Arbitrary<AnthropicRequestOptions> = FastCheck.record(
  {
    model: FastCheck.string({ minLength: 1 }),
    maxTokens: FastCheck.integer({ min: 1, max: 64_000 }),
    promptCaching: FastCheck.boolean(),
    thinking: FastCheck.oneof(
      FastCheck.constant({ type: "adaptive" as const }),
      FastCheck.integer({ min: 1024, max: 10_000 }).map((budget) => ({ type: "enabled" as const, budget_tokens: budget }))
    )
  },
  { requiredKeys: ["model", "maxTokens", "promptCaching"] }
)

const chatOptions: FastCheck.Arbitrary<ChatRequestOptions> = FastCheck.record(
  { model: FastCheck.string({ minLength: 1 }), maxTokens: FastCheck.integer({ min: 1, max: 64_000 }) },
  { requiredKeys: ["model"] }
)

/** An encoder's body is the reference builder's object, and stays so from its caches while a conversation grows. */
const encoderProperties = <O>(
  name: string,
  options: FastCheck.Arbitrary<O>,
  makeEncoder: () => (request: ModelRequest, options: O) => string,
  reference: (request: ModelRequest, options: O) => unknown
) =>
  describe(name, () => {
    it.prop("encodes what the reference builds, field for field", { request, options }, ({ request, options }) => {
      expect(JSON.parse(makeEncoder()(request, options))).toEqual(reference(request, options))
    })

    it.prop(
      "gives the same body from its caches as from scratch while a conversation grows",
      { first: request, more: FastCheck.array(message, { minLength: 1, maxLength: 6 }), options },
      ({ first, more, options }) => {
        const encode = makeEncoder()
        let messages = first.messages
        encode(first, options)
        for (const next of more) {
          messages = [...messages, next]
          const grown = { ...first, messages }
          expect(encode(grown, options)).toBe(makeEncoder()(grown, options))
        }
      }
    )
  })

encoderProperties("the Anthropic body encoder", anthropicOptions, makeAnthropicBodyEncoder, toAnthropicParams)
encoderProperties("the Chat Completions body encoder", chatOptions, makeChatBodyEncoder, toChatRequest)
