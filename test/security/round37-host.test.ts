import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { runningHost } from "../../src/cli/host/connect.js"
import { keptToken } from "../../src/cli/kept-token.js"

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

  /** A listener that keeps what it hears, at `path`; `use` runs while it listens. */
  const listening = <A, E>(path: string, use: (heard: ReadonlyArray<string>) => Effect.Effect<A, E>) =>
    Effect.gen(function* () {
      const heard: Array<string> = []
      const server = createServer((socket) => {
        socket.on("data", (chunk) => {
          heard.push(chunk.toString("utf8"))
          socket.destroy()
        })
      })
      yield* Effect.async<void>((resume) => {
        server.listen(path, () => resume(Effect.void))
      })
      return yield* Effect.ensuring(
        use(heard),
        Effect.async<void>((resume) => {
          server.close(() => resume(Effect.void))
        })
      )
    })

  // The socket is judged where it lies (lstat): a link at host.sock to a socket elsewhere is not asked.
  it.effect("a client never sends the kept token through a link at host.sock to a socket elsewhere", () =>
    Effect.gen(function* () {
      const root = mkdtempSync(join(tmpdir(), "round37-link-"))
      const dataDir = join(root, "data")
      try {
        const token = (yield* keptToken(dataDir, false)).value
        yield* listening(join(root, "elsewhere.sock"), (heard) =>
          Effect.gen(function* () {
            symlinkSync(join(root, "elsewhere.sock"), join(dataDir, "host.sock"))
            const found = yield* Effect.either(runningHost(dataDir))
            expect(heard.join("").includes(token), "the kept token went through the link").toBe(false)
            expect(found._tag).toBe("Left")
          })
        )
      } finally {
        rmSync(root, { recursive: true, force: true })
      }
    })
  )

  // Only root can hand a socket to another user; the check is the same for one planted otherwise.
  it.effect.runIf(process.getuid?.() === 0)("a client never sends the kept token to a host.sock another user owns", () =>
    Effect.gen(function* () {
      const root = mkdtempSync(join(tmpdir(), "round37-owner-"))
      const dataDir = join(root, "data")
      try {
        const token = (yield* keptToken(dataDir, false)).value
        yield* listening(join(dataDir, "host.sock"), (heard) =>
          Effect.gen(function* () {
            chownSync(join(dataDir, "host.sock"), 65534, 65534)
            const found = yield* Effect.either(runningHost(dataDir))
            expect(heard.join("").includes(token), "the kept token went to another user's socket").toBe(false)
            expect(found._tag).toBe("Left")
          })
        )
      } finally {
        rmSync(root, { recursive: true, force: true })
      }
    })
  )
})
