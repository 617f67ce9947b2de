import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { StoreFailure } from "../../src/domain/errors.js"
import * as Jsonl from "../../src/layers/event-store/jsonl.js"
import { networkFailure } from "../../src/layers/model/provider-errors.js"

describe("errors keep their cause", () => {
  it.effect("a store that cannot open says why in words and keeps the file system's error", () =>
    Effect.gen(function* () {
      const dir = mkdtempSync(join(tmpdir(), "cause-"))
      const notADirectory = join(dir, "file")
      writeFileSync(notADirectory, "")
      const error = yield* Effect.flip(Jsonl.make({ directory: join(notADirectory, "sessions"), truncatedLastLine: "fail" }))
      rmSync(dir, { recursive: true, force: true })
      expect(error).toBeInstanceOf(StoreFailure)
      expect(error.cause).toBeInstanceOf(Error)
      expect(error.cause).toMatchObject({ code: "ENOTDIR" })
      expect(error.reason).toContain("not a directory")
    })
  )

  it("a model's network failure keeps the socket's error", () => {
    const socket = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" })
    const failure = networkFailure({ name: "Test", keyVariable: "TEST_KEY" }, socket, "connecting")
    expect(failure.error.cause).toBe(socket)
    expect(failure.error.message).toContain("ECONNREFUSED")
  })

  it("the cause travels over the wire as a name and a message", () => {
    const error = new StoreFailure({ operation: "append", reason: "disk full", cause: new Error("ENOSPC: no space left on device") })
    const decoded = Schema.decodeUnknownSync(StoreFailure)(JSON.parse(JSON.stringify(Schema.encodeSync(StoreFailure)(error))))
    expect(decoded.cause).toBeInstanceOf(Error)
    expect(decoded.cause).toMatchObject({ message: "ENOSPC: no space left on device" })
  })
})
