import { execFileSync } from "node:child_process"
import { chmodSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { runCli, startServer, stop } from "../support/cli.js"
import { makeTemp } from "../support/temp-dirs.js"

/**
 * The token `serve` keeps in its data directory (`server-token`) is the key to an agent that
 * runs shell commands. It is used only when it is a regular file of the user's own with no
 * group or other bits: a link planted at its path, or a file others could read, is refused with
 * a clear error and never served. Each case has its control: the same planted file through a
 * path without the check (`--token-file`, which follows links and takes any mode, as a file the
 * user names should) does the harm. Runs the built CLI (`npm run build` first).
 */
const temp = makeTemp()
afterAll(temp.cleanup)

const attackerToken = "attacker-chose-this-token-0123456789"
const isRoot = process.getuid?.() === 0

/** A token file the attacker wrote and can read, outside the user's data directory. */
const plantedFile = () => {
  const dir = temp.dir("attacker-")
  chmodSync(dir, 0o755)
  const file = join(dir, "token")
  writeFileSync(file, `${attackerToken}\n`, { mode: 0o644 })
  return file
}

const serveOn = (data: string) => runCli(["serve", "--port", "0", "--model", "scripted", "--data-dir", data], { timeoutMs: 30_000 })

const listWith = (url: string, token: string) => runCli(["sessions", "list", "--server", url], { env: { CUSTOM_AGENT_TOKEN: token } })

describe("security: the token serve keeps in its data directory", () => {
  it("a link planted at its path is refused: serve does not start; through --token-file (no check) the attacker's token opens the API", { timeout: 90_000 }, async () => {
    const planted = plantedFile()
    const data = temp.dir("data-")
    symlinkSync(planted, join(data, "server-token"))
    const refused = await serveOn(data)
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain(`the server token file ${join(data, "server-token")} is a symbolic link`)
    expect(refused.stdout).not.toContain("serving on")
    expect(refused.stdout + refused.stderr).not.toContain(attackerToken)

    // The control: served from the same link without the check, the attacker is in.
    const server = await startServer(["--model", "scripted", "--data-dir", temp.dir("data-"), "--token-file", join(data, "server-token")])
    try {
      expect(server.token).toBe(attackerToken)
      expect((await listWith(server.url, attackerToken)).code).toBe(0)
    } finally {
      await stop(server.child)
    }
  })

  it("a file others can read (0644) is refused and left as it is; another user reads such a file where the check is missing", { timeout: 90_000 }, async () => {
    const data = temp.dir("data-")
    const file = join(data, "server-token")
    writeFileSync(file, "a-token-someone-else-may-have-read\n", { mode: 0o644 })
    const refused = await serveOn(data)
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain(`the server token file ${file} can be read or changed by other users (mode 0644; it must be 0600)`)
    expect(refused.stdout).not.toContain("serving on")
    // Not repaired: a secret that was readable may be known already.
    expect(readFileSync(file, "utf8")).toBe("a-token-someone-else-may-have-read\n")
    expect(readdirSync(data).filter((name) => name.startsWith("server-token"))).toEqual(["server-token"])

    // The control: such a file where the directory lets others in is read by another user.
    if (!isRoot) return
    const open = temp.dir("open-")
    chmodSync(open, 0o755)
    const exposed = join(open, "token")
    writeFileSync(exposed, `${attackerToken}\n`, { mode: 0o644 })
    expect(execFileSync("runuser", ["-u", "nobody", "--", "cat", exposed], { encoding: "utf8" })).toBe(`${attackerToken}\n`)
  })

  it("a folder, or a file another user owns, is refused too; a good file serves and is the token", { timeout: 90_000 }, async () => {
    const asFolder = temp.dir("data-")
    mkdirSync(join(asFolder, "server-token"), { mode: 0o700 })
    const folder = await serveOn(asFolder)
    expect(folder.code).toBe(1)
    expect(folder.stderr).toContain("is not a regular file (a directory)")

    if (isRoot) {
      const theirs = temp.dir("data-")
      writeFileSync(join(theirs, "server-token"), `${attackerToken}\n`, { mode: 0o600 })
      execFileSync("chown", ["nobody", join(theirs, "server-token")])
      const owned = await serveOn(theirs)
      expect(owned.code).toBe(1)
      expect(owned.stderr).toContain("is owned by another user")
    }

    const good = temp.dir("data-")
    writeFileSync(join(good, "server-token"), "the-users-own-token-0123456789\n", { mode: 0o600 })
    const server = await startServer(["--model", "scripted", "--data-dir", good])
    try {
      expect(server.token).toBe("the-users-own-token-0123456789")
    } finally {
      await stop(server.child)
    }
  })
})
