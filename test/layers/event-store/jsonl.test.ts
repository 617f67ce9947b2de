import { describe, expect, it } from "@effect/vitest"
import { Effect, Logger, Option, Stream } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type { EventDecodeError } from "../../../src/domain/errors.js"
import type { AgentEvent } from "../../../src/domain/events.js"
import * as JsonlStore from "../../../src/layers/event-store/jsonl.js"
import { created, delta, range, replayAll, replayUntilFailure, tempDir } from "./fixtures.js"

const lineOf = (event: AgentEvent) => `${JSON.stringify(event)}\n`

/** A directory holding `ses_j.jsonl` with `content`, and a store over it. */
const storeWith = (content: string, truncatedLastLine: "skip" | "fail") =>
  Effect.gen(function* () {
    const directory = yield* tempDir
    const file = path.join(directory, "ses_j.jsonl")
    fs.writeFileSync(file, content)
    const store = yield* JsonlStore.make({ directory, truncatedLastLine })
    return { store, file, directory }
  })


const expectDecodeError = (error: unknown, problem: EventDecodeError["problem"], line: number) => {
  expect(error).toMatchObject({ _tag: "EventDecodeError", problem, line, message: expect.stringContaining(`line ${line}`) })
}


/** Runs `effect` and returns the warnings it logged (instead of printing them). */
const withWarnings = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.gen(function* () {
    const warnings: Array<string> = []
    const capture = Logger.make(({ logLevel, message }) => {
      if (logLevel._tag === "Warning") warnings.push(String(message))
    })
    yield* effect.pipe(Effect.provide(Logger.replace(Logger.defaultLogger, capture)))
    return warnings
  })

const threeLines = range("ses_j", 1, 3).map(lineOf).join("")
const truncated = `${threeLines}{"id":"evt_ses_j_4","schemaVersion":1,"sess`

describe("JSONL store", () => {
  it.scopedLive("skip mode: replay and head ignore a truncated last line, the next append cuts it off", () =>
    Effect.gen(function* () {
      const { store, file } = yield* storeWith(truncated, "skip")
      expect(yield* replayAll(store, "ses_j")).toEqual(range("ses_j", 1, 3))
      expect(yield* store.head("ses_j")).toEqual(Option.some(3))
      const warnings = yield* withWarnings(store.append(delta("ses_j", 4)))
      expect(warnings).toHaveLength(1)
      expect(warnings[0]).toContain("truncated last line")
      expect(fs.readFileSync(file, "utf8")).toBe(threeLines + lineOf(delta("ses_j", 4)))
      expect(yield* replayAll(store, "ses_j")).toEqual(range("ses_j", 1, 4))
    }))

  it.scopedLive("skip mode: a file holding only a truncated line is an empty session", () =>
    Effect.gen(function* () {
      const { store, file } = yield* storeWith('{"id":"evt_1","sche', "skip")
      expect(yield* store.head("ses_j")).toEqual(Option.none())
      expect(yield* replayAll(store, "ses_j")).toEqual([])
      expect(yield* store.listSessions).toEqual([])
      expect(yield* withWarnings(store.append(created("ses_j")))).toHaveLength(1)
      expect(fs.readFileSync(file, "utf8")).toBe(lineOf(created("ses_j")))
    }))

  it.scopedLive("fail mode: replay, head, append and listing fail naming the truncated line", () =>
    Effect.gen(function* () {
      const { store, file } = yield* storeWith(truncated, "fail")
      const { seen, error } = yield* replayUntilFailure(store, "ses_j")
      expect(seen).toEqual([1, 2, 3])
      expectDecodeError(error, "truncated_line", 4)
      expectDecodeError(yield* Effect.flip(store.head("ses_j")), "truncated_line", 4)
      expectDecodeError(yield* Effect.flip(store.append(delta("ses_j", 4))), "truncated_line", 4)
      expectDecodeError(yield* Effect.flip(store.listSessions), "truncated_line", 4)
      expect(fs.readFileSync(file, "utf8")).toBe(truncated)
    }))

  for (const mode of ["skip", "fail"] as const) {
    it.scopedLive(`${mode} mode: a corrupt line in the middle fails replay at that line`, () =>
      Effect.gen(function* () {
        const lines = range("ses_j", 1, 5).map(lineOf)
        lines[2] = "{not json\n"
        const { store } = yield* storeWith(lines.join(""), mode)
        const { seen, error } = yield* replayUntilFailure(store, "ses_j")
        expect(seen).toEqual([1, 2])
        expectDecodeError(error, "malformed_json", 3)
      }))
  }

  it.scopedLive("an unknown event type or schemaVersion 2 is a typed error naming it and its line", () =>
    Effect.gen(function* () {
      const unknownType = { ...delta("ses_j", 2), type: "model.teleported" }
      const first = yield* storeWith(lineOf(created("ses_j")) + JSON.stringify(unknownType) + "\n", "fail")
      const typeError = (yield* replayUntilFailure(first.store, "ses_j")).error
      expectDecodeError(typeError, "unknown_type", 2)
      expect(typeError).toMatchObject({ eventType: "model.teleported" })
      expect(typeError.message).toContain("model.teleported")

      const nextVersion = { ...delta("ses_j", 2), schemaVersion: 2 }
      const second = yield* storeWith(lineOf(created("ses_j")) + JSON.stringify(nextVersion) + "\n", "fail")
      const versionError = (yield* replayUntilFailure(second.store, "ses_j")).error
      expectDecodeError(versionError, "unsupported_schema_version", 2)
      expect(versionError.message).toContain("schemaVersion 2")
      // That line is also the last one: the tail lookup reports it with its number too.
      expectDecodeError(yield* Effect.flip(second.store.head("ses_j")), "unsupported_schema_version", 2)
    }))

  it.scopedLive("a line holding another sequence than its number is an error naming the line", () =>
    Effect.gen(function* () {
      const { store } = yield* storeWith(lineOf(created("ses_j")) + lineOf(delta("ses_j", 3)), "fail")
      const { seen, error } = yield* replayUntilFailure(store, "ses_j")
      expect(seen).toEqual([1])
      expectDecodeError(error, "invalid_payload", 2)
    }))

  it.scopedLive("UTF-8 characters split across read chunks replay intact", () =>
    Effect.gen(function* () {
      const directory = yield* tempDir
      const store = yield* JsonlStore.make({ directory, truncatedLastLine: "fail" })
      const first = created("ses_u")
      // Put the third emoji of line 2 across the 64 KiB boundary: bytes 65534..65537.
      const emoji = "😀"
      const probe = lineOf(delta("ses_u", 2, emoji))
      const emojiOffset = Buffer.byteLength(lineOf(first)) + Buffer.from(probe).indexOf(Buffer.from(emoji))
      const padding = 65_536 - 2 - 2 * 4 - emojiOffset
      const split = delta("ses_u", 2, "a".repeat(padding) + emoji.repeat(8) + "é€")
      const boundary = Buffer.from(lineOf(first) + lineOf(split)).subarray(65_534, 65_538).toString("utf8")
      expect(boundary).toBe(emoji)
      // And a last line longer than a chunk, found by the backwards tail read.
      const long = delta("ses_u", 3, "€ü😀".repeat(30_000))
      const events = [first, split, long]
      yield* store.appendAll(events)
      expect(yield* replayAll(store, "ses_u")).toEqual(events)
      const reopened = yield* JsonlStore.make({ directory, truncatedLastLine: "fail" })
      expect(yield* reopened.head("ses_u")).toEqual(Option.some(3))
      expect(yield* replayAll(reopened, "ses_u")).toEqual(events)
    }))

  it.scopedLive("writes one JSON line per event, a batch in one piece", () =>
    Effect.gen(function* () {
      const directory = yield* tempDir
      const store = yield* JsonlStore.make({ directory: path.join(directory, "nested", "sessions"), truncatedLastLine: "fail" })
      yield* store.appendAll(range("ses_w", 1, 3))
      const text = fs.readFileSync(path.join(directory, "nested", "sessions", "ses_w.jsonl"), "utf8")
      expect(text).toBe(range("ses_w", 1, 3).map(lineOf).join(""))
    }))

  it.scopedLive("rejects session ids that are not safe file names", () =>
    Effect.gen(function* () {
      const directory = yield* tempDir
      const store = yield* JsonlStore.make({ directory, truncatedLastLine: "fail" })
      for (const id of ["../escape", "a/b", ".hidden", "", "x".repeat(300)]) {
        const event = { ...created("ses_ok"), sessionId: id }
        expect(yield* Effect.flip(store.append(event))).toMatchObject({ _tag: "InvalidSessionId" })
        expect(yield* Effect.flip(store.head(id))).toMatchObject({ _tag: "InvalidSessionId" })
        expect(yield* Effect.flip(Stream.runDrain(store.replay(id)))).toMatchObject({ _tag: "InvalidSessionId" })
      }
      expect(fs.readdirSync(directory)).toEqual([])
      expect(fs.existsSync(path.join(directory, "..", "escape.jsonl"))).toBe(false)
    }))

  it.scopedLive("listing skips files that are not sessions and names a corrupt first line", () =>
    Effect.gen(function* () {
      const { store, directory } = yield* storeWith(threeLines, "fail")
      fs.writeFileSync(path.join(directory, "notes.txt"), "hello\n")
      fs.writeFileSync(path.join(directory, "ses_empty.jsonl"), "")
      expect((yield* store.listSessions).map((s) => [s.sessionId, s.lastSequence])).toEqual([["ses_j", 3]])
      fs.writeFileSync(path.join(directory, "ses_bad.jsonl"), "{oops\n" + lineOf(delta("ses_bad", 2)))
      expectDecodeError(yield* Effect.flip(store.listSessions), "malformed_json", 1)
    }))

  it.scopedLive("a failed write is not remembered: the tail is read again", () =>
    Effect.gen(function* () {
      const directory = yield* tempDir
      const store = yield* JsonlStore.make({ directory, truncatedLastLine: "fail" })
      yield* store.appendAll(range("ses_f", 1, 2))
      const file = path.join(directory, "ses_f.jsonl")
      // A directory where the file was makes the write fail.
      fs.rmSync(file)
      fs.mkdirSync(file)
      expect(yield* Effect.flip(store.append(delta("ses_f", 3)))).toMatchObject({ _tag: "StoreFailure", operation: "append" })
      // Meanwhile the file came back with three events: a remembered tail would write 3 twice.
      fs.rmdirSync(file)
      fs.writeFileSync(file, range("ses_f", 1, 3).map(lineOf).join(""))
      expect(yield* Effect.flip(store.append(delta("ses_f", 3)))).toMatchObject({ _tag: "SequenceConflict", expected: 4 })
      yield* store.append(delta("ses_f", 4))
      expect(yield* replayAll(store, "ses_f")).toEqual(range("ses_f", 1, 4))
    }))
})
