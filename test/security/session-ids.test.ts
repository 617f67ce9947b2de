import { NodeHttpServer } from "@effect/platform-node"
import { afterAll, describe, expect, it, layer } from "@effect/vitest"
import { Effect, Layer, Stream } from "effect"
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import type { AgentEvent } from "../../src/domain/events.js"
import { AgentHost } from "../../src/host/AgentHost.js"
import { serverLayer } from "../../src/rpc/server.js"
import { EventStore } from "../../src/services/EventStore.js"
import { created, delta } from "../layers/event-store/fixtures.js"
import { postgresSubject } from "../layers/event-store/postgres-subject.js"
import { freshLayer, jsonl, memory, sqlite, type StoreSubject } from "../layers/event-store/stores.js"
import { hostTestLayer } from "../support/host-harness.js"
import { postgresAvailable, postgresSuite, serverForFile } from "../support/postgres.js"
import { makeWebRoot, postRaw, testClientLayer } from "../support/rpc-test-client.js"

/**
 * One rule for session ids at every door (src/domain/ids.ts): paths, hidden names, options
 * and empty ids are refused by every store, by the RPC payloads and by an import, and nothing
 * lands anywhere. (The SQLite store once took `""` and `../../x`, which the JSONL one refused.)
 */
const hostile = ["", "../../escaped-by-id", "../escaped-by-id", "..", ".hidden", "/tmp/escaped-by-id", "a/b", "-rf", "ses\u0000x"]

const token = "test-token-session-ids-0123456789"
const web = makeWebRoot()
afterAll(web.remove)

/** A whole one-turn log of a session; valid in every way but, maybe, its id. */
const logOf = (sessionId: string): ReadonlyArray<AgentEvent> => [created(sessionId), delta(sessionId, 2)]

/** Nothing named after a hostile id appeared outside a store's directory. */
const nothingEscaped = () => {
  for (const dir of [tmpdir(), dirname(tmpdir()), "/tmp"]) {
    expect(readdirSync(dir).filter((name) => name.startsWith("escaped-by-id")), dir).toEqual([])
  }
}

const storeSuite = (subject: StoreSubject) => {
  describe(`${subject.name} store`, () => {
    it.scopedLive("append, appendAll, replay and head refuse every hostile id with InvalidSessionId; nothing is written", () =>
      Effect.gen(function* () {
        const location = yield* subject.location
        const store = yield* location.open
        for (const id of hostile) {
          const shown = JSON.stringify(id)
          const [first, second] = logOf(id)
          if (first === undefined || second === undefined) throw new Error("no log")
          expect((yield* Effect.flip(store.append(first)))._tag, shown).toBe("InvalidSessionId")
          expect((yield* Effect.flip(store.appendAll([first, second])))._tag, shown).toBe("InvalidSessionId")
          expect((yield* Effect.flip(Stream.runCollect(store.replay(id))))._tag, shown).toBe("InvalidSessionId")
          expect((yield* Effect.flip(store.replay(id, 1).pipe(Stream.runDrain)))._tag, shown).toBe("InvalidSessionId")
          expect((yield* Effect.flip(store.head(id)))._tag, shown).toBe("InvalidSessionId")
        }
        expect(yield* store.listSessions).toEqual([])
        nothingEscaped()
        // The same store still takes a good id.
        yield* store.appendAll(logOf("ses_fine"))
        expect((yield* store.listSessions).map((s) => s.sessionId)).toEqual(["ses_fine"])
      }))

    it.scopedLive("deleteSession refuses every hostile id: a file beside the store's directory, named like a session's, stays", () =>
      Effect.gen(function* () {
        const location = yield* subject.location
        const store = yield* location.open
        // A JSONL store keeps `<dir>/<id>.jsonl`, its directory under tmpdir(): `../victim-of-delete` would name this file.
        const victim = join(tmpdir(), "victim-of-delete.jsonl")
        writeFileSync(victim, "keep me\n")
        yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(victim, { force: true })))
        for (const id of [...hostile, "../victim-of-delete", "../../victim-of-delete"]) {
          expect((yield* Effect.flip(store.deleteSession(id)))._tag, JSON.stringify(id)).toBe("InvalidSessionId")
        }
        expect(readFileSync(victim, "utf8")).toBe("keep me\n")
      }))

    it.scopedLive("an import under a hostile id is refused as an invalid log, also unverified; nothing is written", () =>
      Effect.gen(function* () {
        const host = yield* AgentHost
        const store = yield* EventStore
        for (const id of hostile) {
          for (const unverified of [false, true]) {
            const error = yield* Effect.flip(host.importSession(logOf(id), { unverified }))
            expect(error._tag, JSON.stringify(id)).toBe("InvalidSessionLog")
            expect(error.message).toContain("invalid session id")
          }
        }
        expect(yield* store.listSessions).toEqual([])
        nothingEscaped()
      }).pipe(Effect.provide(hostTestLayer(freshLayer(subject)))))
  })

  const E2E = testClientLayer(token).pipe(
    Layer.provideMerge(serverLayer({ token, webRoot: web.dir, boundHost: "127.0.0.1" })),
    Layer.provideMerge(hostTestLayer(freshLayer(subject))),
    Layer.provideMerge(NodeHttpServer.layerTest)
  )

  const post = (tag: string, payload: unknown) => postRaw(token, tag, payload)

  layer(E2E, { timeout: 30_000, excludeTestServices: true })(`over RPC on the ${subject.name} store`, (it) => {
    it.effect("every payload's sessionId is checked before a handler runs; an ImportSession under one is refused", () =>
      Effect.gen(function* () {
        for (const id of hostile) {
          const payloads: ReadonlyArray<readonly [string, unknown]> = [
            ["GetSession", { sessionId: id }],
            ["ListCommands", { sessionId: id }],
            ["ExportSession", { sessionId: id }],
            ["Subscribe", { sessionId: id }],
            ["Prompt", { sessionId: id, content: "hi" }],
            ["Cancel", { sessionId: id }],
            ["DeleteSession", { sessionId: id }],
            ["SetMode", { sessionId: id, mode: "plan" }],
            ["Compact", { sessionId: id }],
            ["EditQueue", { sessionId: id, messageId: "m", action: { _tag: "Delete" } }],
            ["RespondPermission", { sessionId: id, toolCallId: "c", answer: { decision: "allow", scope: "once" } }]
          ]
          for (const [tag, payload] of payloads) {
            const body = yield* post(tag, payload)
            expect(body, `${tag} ${JSON.stringify(id)}`).toContain("a session id is 1 to 200 letters")
          }
          const imported = yield* post("ImportSession", { events: logOf(id) })
          expect(imported, JSON.stringify(id)).toContain('"_tag":"InvalidSessionLog"')
        }
        const store = yield* EventStore
        expect(yield* store.listSessions).toEqual([])
        nothingEscaped()
      }))
  })
}

for (const subject of [memory, sqlite, jsonl("fail")]) storeSuite(subject)

describe.skipIf(!postgresAvailable)(postgresSuite("session ids on Postgres"), () => {
  storeSuite(postgresSubject(serverForFile()))
})
