import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Schema } from "effect"
import { InvalidSessionId, isSessionId, SessionId, sessionIdProblem } from "../../src/domain/ids.js"
import { IdsDeterministic, IdsLive } from "../../src/layers/ids.js"
import { Ids } from "../../src/services/Ids.js"

const refused = ["", "../../x", "..", ".", ".hidden", "-rf", "a/b", "a\\b", "/etc/passwd", "a b", "a\nb", "a\u0000b", "é", "x".repeat(201), "ses_1.jsonl/../../y"]
const accepted = ["a", "_", "ses_1", "ses_0mc8d2k9ab12cd34ef56ab", "S-1.2_3", "x".repeat(200), "a..b", "9"]

describe("the session id rule", () => {
  it("accepts the ids the engine generates, live and deterministic", () =>
    Effect.gen(function* () {
      for (const layer of [IdsLive, IdsDeterministic]) {
        const ids = yield* Effect.provide(Effect.all(Array.from({ length: 50 }, () => Effect.flatMap(Ids, (i) => i.make("ses")))), layer)
        for (const id of ids) expect(isSessionId(id), id).toBe(true)
      }
    }).pipe(Effect.runSync))

  it("accepts every name the JSONL store always accepted, and refuses paths, hidden names, options and empty ids", () => {
    for (const id of accepted) expect(sessionIdProblem(id), id).toBeUndefined()
    for (const id of refused) expect(sessionIdProblem(id), JSON.stringify(id)).toBeInstanceOf(InvalidSessionId)
  })

  it("as a Schema: decoding a bad id fails naming the rule", () => {
    expect(Schema.decodeUnknownEither(SessionId)("ses_1")).toEqual(Either.right("ses_1"))
    const bad = Schema.decodeUnknownEither(SessionId)("../../x")
    expect(Either.isLeft(bad)).toBe(true)
    if (Either.isLeft(bad)) expect(bad.left.message).toContain('a session id is 1 to 200 letters, digits, "_", "-" or "."')
  })

  it("the typed error quotes a long or hostile id cut short", () => {
    const error = sessionIdProblem(`../${"a".repeat(500)}\n`)
    expect(error?._tag).toBe("InvalidSessionId")
    expect(error?.sessionId.length).toBe(81)
    expect(error?.message).toMatch(/^invalid session id "\.\.\/a+…": a session id is/)
  })
})
