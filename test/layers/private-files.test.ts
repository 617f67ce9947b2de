import { afterAll, describe, expect, it } from "@effect/vitest"
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { claimPrivateDir, dataDirRefusal, ensurePrivateFile, writePrivateFile } from "../../src/layers/private-files.js"

const roots: Array<string> = []
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true })
})
const freshRoot = () => {
  const root = mkdtempSync(join(tmpdir(), "private-"))
  roots.push(root)
  return root
}
const modeOf = (path: string) => statSync(path).mode & 0o7777

describe("private files", () => {
  it("claimPrivateDir creates missing folders 0700 and tightens a looser one of ours", () => {
    const root = freshRoot()
    const fresh = join(root, "a", "b")
    claimPrivateDir(fresh)
    expect([modeOf(join(root, "a")), modeOf(fresh)]).toEqual([0o700, 0o700])
    const loose = join(root, "loose")
    mkdirSync(loose)
    chmodSync(loose, 0o755)
    claimPrivateDir(loose)
    expect(modeOf(loose)).toBe(0o700)
  })

  // Refused, not repaired: what others put there while they could write it would stay.
  it("claimPrivateDir refuses a folder others can write (sticky or not), naming it, and leaves it as it is", () => {
    for (const mode of [0o1777, 0o777, 0o775]) {
      const shared = join(freshRoot(), "shared")
      mkdirSync(shared)
      chmodSync(shared, mode)
      expect(() => claimPrivateDir(shared)).toThrow(`the data directory ${shared} can be written by other users`)
      expect(modeOf(shared)).toBe(mode)
      expect(dataDirRefusal(shared)?.message).toContain("chmod 700")
    }
  })

  it.runIf(process.getuid?.() === 0)("claimPrivateDir refuses a folder another user owns and leaves it as it is", () => {
    const theirs = join(freshRoot(), "theirs")
    mkdirSync(theirs)
    chmodSync(theirs, 0o700)
    chownSync(theirs, 65534, 65534)
    expect(() => claimPrivateDir(theirs)).toThrow(`the data directory ${theirs} is owned by another user (uid 65534)`)
    expect(modeOf(theirs)).toBe(0o700)
  })

  it("a data directory not there yet passes the check (whoever writes creates it private)", () => {
    expect(dataDirRefusal(join(freshRoot(), "missing"))).toBeUndefined()
  })

  it("ensurePrivateFile creates an empty 0600 file and keeps an existing one as it is", () => {
    const root = freshRoot()
    const file = join(root, "new.db")
    ensurePrivateFile(file)
    expect(modeOf(file)).toBe(0o600)
    expect(readFileSync(file, "utf8")).toBe("")
    const existing = join(root, "old.db")
    writeFileSync(existing, "data")
    ensurePrivateFile(existing)
    expect(readFileSync(existing, "utf8")).toBe("data")
  })

  it("writePrivateFile replaces a file whole with a 0600 one, in a folder it creates 0700, leaving no temporary behind", async () => {
    const root = freshRoot()
    const dir = join(root, "data")
    const file = join(dir, "memory.json")
    await writePrivateFile(file, "one")
    expect([modeOf(dir), modeOf(file), readFileSync(file, "utf8")]).toEqual([0o700, 0o600, "one"])
    chmodSync(file, 0o644)
    await writePrivateFile(file, "two")
    expect([modeOf(file), readFileSync(file, "utf8")]).toEqual([0o600, "two"])
    expect(readdirSync(dir)).toEqual(["memory.json"])
  })
})
