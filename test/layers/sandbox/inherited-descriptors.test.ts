import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { LAUNCHER_SHELL } from "../../../src/layers/sandbox/launcher.js"
import { bwrapInstalled, makeDirs, openForAppend, realSandbox, runHolding, sandboxSuite, shellInAgentHolding } from "../../support/sandbox.js"

/**
 * The descriptors of the shell that runs the line, on one line. A simple command, not a
 * pipeline: while the shell builds a pipeline it holds the pipe's ends itself, and `ls` would
 * list them.
 */
const LIST_OWN = "ls -m /proc/$$/fd"

/** A test that starts an agent process of its own (tsx compiling the tool and the sandbox) gets longer on a loaded machine. */
const AGENT_START = 120_000

describe.skipIf(!bwrapInstalled)(sandboxSuite("descriptors the agent inherited, and the sandbox"), () => {
  it.live("a shell call of an agent holding inherited descriptors sees only 0, 1 and 2, and cannot write through them", () =>
    Effect.gen(function* () {
      const dirs = yield* makeDirs()
      const victim = join(dirs.outside, "victim.txt")
      writeFileSync(victim, "original\n")
      const fd = yield* openForAppend(victim)
      // High numbers: Node marks only the low, contiguous ones it inherited close-on-exec.
      const result = yield* shellInAgentHolding(dirs, `${LIST_OWN}; echo harm >&50; echo harm >&200`, { 50: fd, 200: fd })
      expect(readFileSync(victim, "utf8"), "the host file is unchanged").toBe("original\n")
      expect(result.output.split("\n")[0]).toBe("0, 1, 2")
      expect(result.output).toContain("50: Bad file descriptor")
      expect(result.output).toContain("200: Bad file descriptor")
    }).pipe(Effect.scoped), AGENT_START)

  it.live("whatever starts it (shell, hook, MCP server) and whatever the settings, what the sandbox wraps keeps only 0, 1 and 2 open", () =>
    Effect.gen(function* () {
      const dirs = yield* makeDirs()
      const victim = join(dirs.outside, "victim.txt")
      writeFileSync(victim, "original\n")
      const fd = yield* openForAppend(victim)
      for (const allowUnixSockets of [false, true]) {
        // With sockets allowed there is no seccomp filter to open; the launcher runs all the same.
        writeFileSync(join(dirs.configDir, "settings.json"), JSON.stringify({ sandbox: { allowUnixSockets } }))
        const sandbox = yield* realSandbox(dirs)
        for (const detached of [true, false]) {
          // Run inside the wrap's scope: the protected paths it prepared last until it closes.
          const { argv, result } = yield* Effect.scoped(
            Effect.gen(function* () {
              const argv = yield* sandbox.wrap({
                argv: ["/bin/sh", "-c", `${LIST_OWN}; echo harm >&7; echo harm >&60`],
                cwd: dirs.workspace,
                workspaceRoot: dirs.workspace,
                profile: { _tag: "bwrap", network: false },
                detached
              })
              return { argv, result: yield* runHolding(argv, { 7: fd, 60: fd }) }
            })
          )
          expect(argv[0]).toBe(LAUNCHER_SHELL)
          const what = `allowUnixSockets ${allowUnixSockets}, detached ${detached}`
          expect(readFileSync(victim, "utf8"), what).toBe("original\n")
          expect(result.stdout, `${what}: ${result.stderr}`).toBe("0, 1, 2\n")
        }
      }
    }).pipe(Effect.scoped))
})
