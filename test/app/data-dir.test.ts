import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { jsonlDirectory, memoryFile, sqliteFile, type StoreKind } from "../../src/app/locations.js"
import { storeLayer } from "../../src/app/store.js"
import * as MemoryFile from "../../src/layers/memory/file-store.js"
import { EventStore } from "../../src/services/EventStore.js"
import { MemoryStore } from "../../src/services/MemoryStore.js"
import { created, delta } from "../layers/event-store/fixtures.js"

const roots: Array<string> = []
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true })
})
const freshRoot = () => {
  const root = mkdtempSync(join(tmpdir(), "data-dir-"))
  roots.push(root)
  return root
}

const modeOf = (path: string) => statSync(path).mode & 0o777

/** Writes a session through the store the CLI would use; `inside` runs while the store is open. */
const writeSession = (kind: StoreKind, dataDir: string, inside: Effect.Effect<void> = Effect.void) =>
  Effect.gen(function* () {
    const store = yield* EventStore
    yield* store.appendAll([created("ses_a"), delta("ses_a", 2)])
    yield* inside
  }).pipe(Effect.provide(storeLayer(kind, dataDir)), Effect.scoped)

describe("the data directory is the user's alone", () => {
  it.effect("sqlite: a fresh data dir is 0700; the database and its -wal and -shm files are 0600", () => {
    const dataDir = join(freshRoot(), "nested", "data")
    const db = sqliteFile(dataDir)
    const sidecars = Effect.sync(() => {
      // While the store is open, SQLite keeps its write-ahead log and shared memory beside the file.
      for (const file of [db, `${db}-wal`, `${db}-shm`]) {
        expect(existsSync(file), file).toBe(true)
        expect(modeOf(file), file).toBe(0o600)
      }
    })
    return Effect.gen(function* () {
      yield* writeSession("sqlite", dataDir, sidecars)
      expect(modeOf(dataDir)).toBe(0o700)
      expect(modeOf(join(dataDir, ".."))).toBe(0o700)
    })
  })

  it.effect("jsonl: a fresh data dir and its sessions folder are 0700, each session file 0600", () => {
    const dataDir = join(freshRoot(), "data")
    return Effect.gen(function* () {
      yield* writeSession("jsonl", dataDir)
      expect(modeOf(dataDir)).toBe(0o700)
      const sessions = jsonlDirectory(dataDir)
      expect(modeOf(sessions)).toBe(0o700)
      const files = readdirSync(sessions)
      expect(files).toEqual(["ses_a.jsonl"])
      for (const file of files) expect(modeOf(join(sessions, file))).toBe(0o600)
    })
  })

  it.effect("an existing data dir with a looser mode is tightened to 0700 on start", () => {
    const dataDir = join(freshRoot(), "data")
    mkdirSync(dataDir, { mode: 0o755 })
    chmodSync(dataDir, 0o755)
    return Effect.gen(function* () {
      yield* writeSession("jsonl", dataDir)
      expect(modeOf(dataDir)).toBe(0o700)
    })
  })

  it.effect("memory.json is written 0600, in a data dir created 0700", () => {
    const dataDir = join(freshRoot(), "data")
    const file = memoryFile(dataDir)
    return Effect.gen(function* () {
      const memory = yield* MemoryStore
      yield* memory.propose({
        id: "mem_1",
        sessionId: "ses_a",
        workspaceRoot: "/work",
        scope: "project",
        text: "Releases are cut on Fridays.",
        evidence: { sessionId: "ses_a", fromSequence: 1, toSequence: 2 },
        proposedAt: "2026-01-01T00:00:00.000Z"
      })
      expect(modeOf(dataDir)).toBe(0o700)
      expect(modeOf(file)).toBe(0o600)
      expect(readdirSync(dataDir)).toEqual(["memory.json"])
    }).pipe(Effect.provide(MemoryFile.layer(file)))
  })
})
