import { describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { afterAll } from "vitest"

/**
 * Several processes opening one fresh SQLite store at once (a host and clients started
 * together on a new data directory): each must find the schema whole. @effect/sql's migrator
 * takes a losing writer's busy error for "another process migrates" and goes on before that
 * one has committed, so its first statement met `no such table`.
 */

const root = fileURLToPath(new URL("../../../", import.meta.url))
const tsxLoader = pathToFileURL(join(root, "node_modules/tsx/dist/loader.mjs")).href
const child = join(root, "test/layers/event-store/sqlite-open-child-main.ts")
const CHILDREN = 6
const ROUNDS = 3

const dirs: Array<string> = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** Resolves with the child's output lines once `done(lines)` holds, or rejects when it exits first. */
const linesUntil = (process: ChildProcess, done: (lines: ReadonlyArray<string>) => boolean) =>
  new Promise<ReadonlyArray<string>>((resolve, reject) => {
    let out = ""
    let err = ""
    const check = () => {
      const lines = out.split("\n").filter((line) => line !== "")
      if (done(lines)) resolve(lines)
    }
    process.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8")
      check()
    })
    process.stderr?.on("data", (chunk: Buffer) => (err += chunk.toString("utf8")))
    process.on("exit", (code) => reject(new Error(`the child exited (${code}):\n${out}\n${err}`)))
  })

const openAtOnce = async (filename: string) => {
  const children = Array.from({ length: CHILDREN }, (_, i) =>
    spawn(process.execPath, ["--import", tsxLoader, child, filename, `ses_${i}`], { stdio: ["pipe", "pipe", "pipe"] })
  )
  try {
    const ready = children.map((c) => linesUntil(c, (lines) => lines.includes("ready")))
    const results = children.map((c) => linesUntil(c, (lines) => lines.some((line) => line.startsWith("ok") || line.startsWith("failed"))))
    await Promise.all(ready)
    for (const c of children) c.stdin?.write("go\n")
    return (await Promise.all(results)).map((lines) => lines.find((line) => line !== "ready") ?? "")
  } finally {
    for (const c of children) c.kill("SIGKILL")
  }
}

describe("SQLite store: first opens at once", () => {
  it("several processes opening one fresh file at once all find its schema, which is migrated once", { timeout: 180_000 }, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const dir = realpathSync(mkdtempSync(join(tmpdir(), "sqlite-first-open-")))
      dirs.push(dir)
      const filename = join(dir, "events.db")
      expect(await openAtOnce(filename), `round ${round}`).toEqual(Array.from({ length: CHILDREN }, () => "ok 2"))
      const db = new Database(filename, { readonly: true })
      try {
        const ids = db.prepare("SELECT migration_id FROM effect_sql_migrations ORDER BY migration_id").all()
        expect(ids).toEqual([1, 2, 3, 4, 5, 6].map((migration_id) => ({ migration_id })))
      } finally {
        db.close()
      }
    }
  })
})
