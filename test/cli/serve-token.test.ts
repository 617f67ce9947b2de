import { afterAll, describe, expect, it } from "@effect/vitest"
import { readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { runCli, startServer, stop } from "../support/cli.js"
import { makeTemp } from "../support/temp-dirs.js"

/**
 * `serve` without a configured token keeps the one it made in its data directory, so a restart
 * does not lock out the pages and clients it served; `--rotate-token` makes a new one. Runs the
 * built CLI (`npm run build` first).
 */
const temp = makeTemp()
afterAll(temp.cleanup)

const listWith = (url: string, token: string) => runCli(["sessions", "list", "--server", url], { env: { CUSTOM_AGENT_TOKEN: token } })

describe("serve: the token it keeps", () => {
  it("is made once (0600, in the data directory), served again after a restart, and replaced by --rotate-token", { timeout: 120_000 }, async () => {
    const data = temp.dir("serve-token-data-")
    const file = join(data, "server-token")
    const first = await startServer(["--model", "scripted", "--data-dir", data])
    await stop(first.child)
    expect(first.output()).toContain(`a new token, kept in ${file} (--rotate-token makes a new one)`)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(readFileSync(file, "utf8")).toBe(`${first.token}\n`)

    const second = await startServer(["--model", "scripted", "--data-dir", data])
    try {
      expect(second.token).toBe(first.token)
      expect(second.output()).toContain(`the token kept in ${file}`)
      expect((await listWith(second.url, first.token)).code).toBe(0)
    } finally {
      await stop(second.child)
    }

    const rotated = await startServer(["--model", "scripted", "--data-dir", data, "--rotate-token"])
    try {
      expect(rotated.token).not.toBe(first.token)
      expect(readFileSync(file, "utf8")).toBe(`${rotated.token}\n`)
      const old = await listWith(rotated.url, first.token)
      expect(old.code).toBe(1)
      expect(old.stderr).toContain("401")
      expect((await listWith(rotated.url, rotated.token)).code).toBe(0)
    } finally {
      await stop(rotated.child)
    }
  })

  it("a configured token wins and leaves no file; --rotate-token with one is a usage error naming where it comes from", { timeout: 60_000 }, async () => {
    const data = temp.dir("serve-token-data-")
    const configured = await startServer(["--model", "scripted", "--data-dir", data], { env: { CUSTOM_AGENT_TOKEN: "configured-token-0123456789" } })
    await stop(configured.child)
    expect(configured.token).toBe("configured-token-0123456789")
    expect(() => statSync(join(data, "server-token"))).toThrow()
    const result = await runCli(["serve", "--port", "0", "--data-dir", data, "--rotate-token"], { env: { CUSTOM_AGENT_TOKEN: "configured-token-0123456789" } })
    expect(result.code).toBe(2)
    expect(result.stderr).toContain("--rotate-token replaces the token serve keeps in its data directory, but this server's token comes from CUSTOM_AGENT_TOKEN")
  })
})
