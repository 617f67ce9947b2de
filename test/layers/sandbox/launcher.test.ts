import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { launch, SECCOMP_FD } from "../../../src/layers/sandbox/launcher.js"
import { tempDir } from "../../support/mcp-fixtures.js"
import { bwrapInstalled, openForAppend, runHolding, sandboxSuite } from "../../support/sandbox.js"

/**
 * Lists the descriptors of the shell that runs it, on one line. A simple command, not a
 * pipeline: while the shell builds a pipeline it holds the pipe's ends itself, and `ls` would
 * list them.
 */
const LIST_OWN = "ls -m /proc/$$/fd"

describe("the launcher that starts bubblewrap", () => {
  it.scopedLive("closes every inherited descriptor but 0, 1 and 2, low or high, before the command runs; a command cannot write through one", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("sandbox-launcher-")
      const victim = join(dir, "victim.txt")
      writeFileSync(victim, "original\n")
      const fd = yield* openForAppend(victim)
      const held = { 3: fd, 5: fd, 9: fd, 10: fd, 50: fd, 200: fd }
      // The control: the same command, not launched, holds them all (and whatever this process
      // inherited itself) and writes through one.
      const bare = yield* runHolding(["/bin/sh", "-c", `${LIST_OWN}; echo harm >&5`], held)
      expect(bare.stdout.trim().split(", "), "control").toEqual(expect.arrayContaining(["0", "1", "2", "3", "5", "9", "10", "50", "200"]))
      expect(readFileSync(victim, "utf8"), "control").toBe("original\nharm\n")
      writeFileSync(victim, "original\n")

      const launched = yield* runHolding(launch(undefined, ["/bin/sh", "-c", `${LIST_OWN}; echo harm >&3; echo harm >&50; echo harm >&200`]), held)
      expect(launched.stdout).toBe("0, 1, 2\n")
      expect(launched.stderr).toContain("Bad file descriptor")
      expect(readFileSync(victim, "utf8")).toBe("original\n")
    }))

  it.scopedLive("with a seccomp filter: only the filter's file is open besides 0, 1 and 2, on its descriptor (an inherited one there is replaced)", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("sandbox-launcher-")
      const filter = join(dir, "filter.bpf")
      writeFileSync(filter, "")
      const victim = join(dir, "victim.txt")
      writeFileSync(victim, "original\n")
      const fd = yield* openForAppend(victim)
      const result = yield* runHolding(launch(filter, ["/bin/sh", "-c", `${LIST_OWN}; readlink /proc/$$/fd/${SECCOMP_FD}`]), { 4: fd, [SECCOMP_FD]: fd, 77: fd })
      expect(result.stdout).toBe(`0, 1, 2, ${SECCOMP_FD}\n${filter}\n`)
      expect(readFileSync(victim, "utf8")).toBe("original\n")
    }))

  it.scopedLive("runs nothing from the environment on the host first: not BASH_ENV, not an exported function named like a builtin", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("sandbox-launcher-")
      const marker = join(dir, "ran")
      const script = join(dir, "env.sh")
      writeFileSync(script, `touch ${marker}\n`)
      chmodSync(script, 0o755)
      const env = { ...process.env, BASH_ENV: script, ENV: script, "BASH_FUNC_exec%%": `() { touch ${marker}; }`, SHELLOPTS: "xtrace" }
      const result = yield* runHolding(launch(undefined, ["/bin/echo", "ran"]), {}, env)
      expect(result).toMatchObject({ code: 0, stdout: "ran\n" })
      expect(existsSync(marker)).toBe(false)
    }))

  // bubblewrap stands in for a machine without /proc: a private empty one.
  describe.skipIf(!bwrapInstalled)(sandboxSuite("without /proc"), () => {
    it.scopedLive("refuses to start the command when it cannot list the descriptors to close (no /proc)", () =>
      Effect.gen(function* () {
        const noProc = ["bwrap", "--unshare-all", "--ro-bind", "/", "/", "--dev", "/dev", "--tmpfs", "/proc", "--"] as const
        const [shell, ...rest] = launch(undefined, ["/bin/echo", "ran"])
        const result = yield* runHolding([...noProc, shell, ...rest], {})
        expect(result.code).toBe(126)
        expect(result.stdout).toBe("")
        expect(result.stderr).toContain("cannot list /proc/self/fd")
      }))
  })
})
