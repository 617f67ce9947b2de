import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { runningHost } from "../../src/cli/host/connect.js"

/**
 * Round 37's attacker pass on the local host: a data directory others can write (one made
 * beforehand in a shared folder by another user, `--data-dir /tmp/agent` in a script, or
 * `XDG_DATA_HOME` on a group folder). The threat model's rule is that the socket sits in the
 * 0700 data directory; the client takes that as given and sends the kept token to whatever
 * answers at `host.sock`.
 */
describe("round 37: the local host's socket in a data directory others can write", () => {
  it.effect("a client never sends the kept token to a host.sock in a directory others can write (another user could have planted it)", () =>
    Effect.gen(function* () {
      const dataDir = mkdtempSync(join(tmpdir(), "round37-shared-"))
      // As /tmp itself, or a folder another user made there: everyone may create entries (the
      // sticky bit only stops them removing ours). claimPrivateDir leaves such a folder as it is.
      chmodSync(dataDir, 0o1777)
      const heard: Array<string> = []
      // The other user's fake host: it only listens, and keeps what it was sent.
      const planted = createServer((socket) => {
        socket.on("data", (chunk) => {
          heard.push(chunk.toString("utf8"))
          socket.destroy()
        })
      })
      yield* Effect.async<void>((resume) => {
        planted.listen(join(dataDir, "host.sock"), () => resume(Effect.void))
      })
      try {
        yield* Effect.either(runningHost(dataDir))
        const tokenFile = join(dataDir, "server-token")
        const token = existsSync(tokenFile) ? readFileSync(tokenFile, "utf8").trim() : undefined
        expect((statSync(dataDir).mode & 0o7777).toString(8), "the shared folder was left as it was").toBe("1777")
        // The harm today: the probe's request carries `Authorization: Bearer <kept token>` to the
        // planted socket; with it the other user drives every session (and `serve`'s page).
        const sent = heard.join("")
        expect(token === undefined || !sent.includes(token), "the kept token was sent to a socket another user could have planted").toBe(true)
      } finally {
        yield* Effect.async<void>((resume) => {
          planted.close(() => resume(Effect.void))
        })
        rmSync(dataDir, { recursive: true, force: true })
      }
    })
  )
})
