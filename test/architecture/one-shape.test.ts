import { describe, expect, it } from "@effect/vitest"
import { PromptPayload } from "../../src/cluster/session-entity.js"
import { PromptRequest } from "../../src/domain/host.js"
import { AgentRpcs } from "../../src/rpc/group.js"

/**
 * A prompt has one shape, declared once in the domain: the RPC group takes it as it is, the
 * cluster entity's payload is it without the session (the entity's key) and with the request id
 * it is delivered by. A field added to a prompt reaches every transport, or this fails.
 */
describe("one shape per operation", () => {
  it("the RPC Prompt's payload is the domain's PromptRequest", () => {
    expect(AgentRpcs.requests.get("Prompt")?.payloadSchema).toBe(PromptRequest)
  })

  it("the cluster entity's prompt is the same fields, keyed by the session", () => {
    const request = Object.keys(PromptRequest.fields).filter((name) => name !== "sessionId")
    expect(Object.keys(PromptPayload.fields).sort()).toEqual(request.sort())
    const domainFields: Readonly<Record<string, unknown>> = PromptRequest.fields
    for (const [name, schema] of Object.entries(PromptPayload.fields)) {
      if (name !== "requestId") expect(schema, name).toBe(domainFields[name])
    }
  })
})
