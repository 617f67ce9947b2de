import { describe, expect, it } from "@effect/vitest"
import { makeConversation } from "../../src/core/conversation.js"
import { makeEventLog } from "../layers/model/event-log.js"

describe("reasoning items in the conversation", () => {
  it("an encrypted reasoning item closes its thinking part: the next item's summary starts another", () => {
    const log = makeEventLog()
    log.userMessage("Go")
    log.model({ _tag: "ThinkingDelta", text: "First " })
    log.model({ _tag: "ThinkingDelta", text: "item." })
    log.model({ _tag: "ThinkingDelta", text: "", encryptedReasoning: "enc-1" })
    log.model({ _tag: "ThinkingDelta", text: "", encryptedReasoning: "enc-2" })
    log.model({ _tag: "ThinkingDelta", text: "Third." })
    log.model({ _tag: "ThinkingDelta", text: "", encryptedReasoning: "enc-3" })
    log.model({ _tag: "TextDelta", text: "Done." })
    const builder = makeConversation()
    for (const event of log.events) builder.apply(event)
    expect(builder.snapshot()[1]).toEqual({
      role: "assistant",
      content: [
        { _tag: "thinking", text: "First item.", encryptedReasoning: "enc-1" },
        { _tag: "thinking", text: "", encryptedReasoning: "enc-2" },
        { _tag: "thinking", text: "Third.", encryptedReasoning: "enc-3" },
        { _tag: "text", text: "Done." }
      ]
    })
  })
})
