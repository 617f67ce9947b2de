import { afterAll, describe, expect, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { chmodSync, chownSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { createOwnPrivateFileSync, readOwnPrivateFileSync, replaceOwnPrivateFileSync } from "../../src/layers/own-private-file.js"
import { makeTemp } from "../support/temp-dirs.js"

const temp = makeTemp()
afterAll(temp.cleanup)

const modeOf = (path: string) => statSync(path).mode & 0o7777
const isRoot = process.getuid?.() === 0

describe("a secret file of the user's own", () => {
  it("is created 0600 with its whole text, once: a second create changes nothing; a replace is a new file", () => {
    const dir = temp.dir("own-private-")
    const file = join(dir, "secret")
    expect(createOwnPrivateFileSync(file, "first\n")).toBe(true)
    expect(modeOf(file)).toBe(0o600)
    expect(createOwnPrivateFileSync(file, "second\n")).toBe(false)
    expect(readFileSync(file, "utf8")).toBe("first\n")
    const before = statSync(file).ino
    replaceOwnPrivateFileSync(file, "third\n")
    expect(readOwnPrivateFileSync(file, 100)).toEqual({ _tag: "text", text: "third\n" })
    expect(statSync(file).ino).not.toBe(before)
    // No temporary file is left behind.
    expect(readdirSync(dir)).toEqual(["secret"])
  })

  it("is not created over a link, even a dangling one; a replace puts a file where the link was and leaves its target alone", () => {
    const dir = temp.dir("own-private-")
    const target = join(dir, "target")
    const link = join(dir, "secret")
    symlinkSync(target, link)
    expect(createOwnPrivateFileSync(link, "mine\n")).toBe(false)
    expect(() => statSync(target)).toThrow()
    writeFileSync(target, "theirs\n")
    replaceOwnPrivateFileSync(link, "mine\n")
    expect(readFileSync(target, "utf8")).toBe("theirs\n")
    expect(readOwnPrivateFileSync(link, 100)).toEqual({ _tag: "text", text: "mine\n" })
  })

  it("is read only when it is a regular file of this user's with no group or other bits, within the size; missing is not a problem", () => {
    const dir = temp.dir("own-private-")
    const ok = join(dir, "ok")
    writeFileSync(ok, "token\n", { mode: 0o600 })
    expect(readOwnPrivateFileSync(ok, 100)).toEqual({ _tag: "text", text: "token\n" })
    chmodSync(ok, 0o400)
    expect(readOwnPrivateFileSync(ok, 100)).toEqual({ _tag: "text", text: "token\n" })
    expect(readOwnPrivateFileSync(join(dir, "absent"), 100)).toEqual({ _tag: "missing" })

    const refused = (path: string) => {
      const read = readOwnPrivateFileSync(path, 100)
      return read._tag === "refused" ? read.problem : `read: ${read._tag}`
    }
    for (const mode of [0o644, 0o640, 0o604, 0o660, 0o602]) {
      chmodSync(ok, mode)
      expect(refused(ok), mode.toString(8)).toBe(`can be read or changed by other users (mode 0${mode.toString(8)}; it must be 0600)`)
    }
    chmodSync(ok, 0o600)
    const link = join(dir, "link")
    symlinkSync(ok, link)
    expect(refused(link)).toBe("is a symbolic link")
    const folder = join(dir, "folder")
    mkdirSync(folder, { mode: 0o700 })
    expect(refused(folder)).toBe("is not a regular file (a directory)")
    const big = join(dir, "big")
    writeFileSync(big, "x".repeat(101), { mode: 0o600 })
    expect(refused(big)).toBe("is larger than 100 bytes")
    const fifo = join(dir, "fifo")
    execFileSync("mkfifo", ["-m", "600", fifo])
    expect(refused(fifo)).toBe("is not a regular file (a fifo)")
  })

  it.skipIf(!isRoot)("is refused when another user owns it, whatever its mode", () => {
    const file = join(temp.dir("own-private-"), "theirs")
    writeFileSync(file, "token\n", { mode: 0o600 })
    chownSync(file, 12345, 12345)
    expect(readOwnPrivateFileSync(file, 100)).toEqual({ _tag: "refused", problem: "is owned by another user (uid 12345)" })
  })
})
