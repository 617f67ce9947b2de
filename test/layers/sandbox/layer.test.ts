import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Logger, LogLevel, Option, type Scope } from "effect"
import { chmodSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import * as SandboxLayer from "../../../src/layers/sandbox/layer.js"
import type { SandboxOptions } from "../../../src/layers/sandbox/layer.js"
import type { Argv, SandboxShape } from "../../../src/services/Sandbox.js"
import { tempDir } from "../../support/mcp-fixtures.js"

/** A stand-in for bwrap: a script that prints `stderr` and exits with `code`, whatever it is asked. */
const fakeBwrap = (dir: string, code: number, stderr = "") => {
  const path = join(dir, `fake-bwrap-${code}`)
  writeFileSync(path, `#!/bin/sh\n${stderr === "" ? "" : `echo '${stderr}' >&2\n`}exit ${code}\n`)
  chmodSync(path, 0o755)
  return path
}

/** Runs `use` with a sandbox built from `options`, collecting what it logs at warning level and above. */
const withSandbox = <A, E>(options: SandboxOptions, use: (sandbox: SandboxShape) => Effect.Effect<A, E, Scope.Scope>) =>
  Effect.gen(function* () {
    const warnings: Array<string> = []
    const logger = Logger.make(({ logLevel, message }) => {
      if (LogLevel.greaterThanEqual(logLevel, LogLevel.Warning)) warnings.push((Array.isArray(message) ? message : [message]).map(String).join(" "))
    })
    const value = yield* Effect.scoped(Effect.flatMap(SandboxLayer.make(options), use)).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, logger)))
    return { value, warnings }
  })

const dirsFor = (home: string) => ({ configDir: join(home, "config"), dataDir: join(home, "data") })
const argv: Argv = ["/bin/sh", "-c", "true"]

describe("the sandbox layer: modes and detection", () => {
  it.scopedLive("off: every profile is none/off, commands run as they are, and bubblewrap is never looked for", () =>
    Effect.gen(function* () {
      const home = yield* tempDir("sandbox-layer-")
      const { value, warnings } = yield* withSandbox({ mode: "off", bwrapPath: join(home, "missing"), ...dirsFor(home) }, (sandbox) =>
        Effect.gen(function* () {
          const profile = yield* sandbox.profile(home)
          const wrapped = yield* sandbox.wrap({ argv, cwd: home, workspaceRoot: home, profile, detached: true })
          return { profile, wrapped }
        })
      )
      expect(value).toEqual({ profile: { _tag: "none", reason: "off" }, wrapped: argv })
      expect(warnings).toEqual([])
    }))

  it.scopedLive("auto with a bwrap that cannot create namespaces: none/unavailable, and one warning line saying why", () =>
    Effect.gen(function* () {
      const home = yield* tempDir("sandbox-layer-")
      const bwrapPath = fakeBwrap(home, 1, "bwrap: No permissions to create a new namespace")
      const { value, warnings } = yield* withSandbox({ mode: "auto", bwrapPath, ...dirsFor(home) }, (sandbox) =>
        Effect.gen(function* () {
          const first = yield* sandbox.profile(home)
          const second = yield* sandbox.profile(home)
          const wrapped = yield* sandbox.wrap({ argv, cwd: home, workspaceRoot: home, profile: first, detached: true })
          const refused = yield* Effect.flip(sandbox.wrap({ argv, cwd: home, workspaceRoot: home, profile: { _tag: "bwrap", network: false }, detached: true }))
          return { first, second, wrapped, refused: refused._tag }
        })
      )
      expect(value).toEqual({
        first: { _tag: "none", reason: "unavailable" },
        second: { _tag: "none", reason: "unavailable" },
        wrapped: argv,
        refused: "SandboxError"
      })
      expect(warnings).toHaveLength(1)
      expect(warnings[0]).not.toContain("\n")
      expect(warnings[0]).toContain("No permissions to create a new namespace")
      expect(warnings[0]).toContain("every shell call asks")
    }))

  it.scopedLive("auto without bwrap anywhere, or off Linux: none/unavailable with the reason", () =>
    Effect.gen(function* () {
      const home = yield* tempDir("sandbox-layer-")
      const missing = yield* withSandbox({ mode: "auto", bwrapPath: "bwrap", env: { PATH: home }, ...dirsFor(home) }, (sandbox) => sandbox.profile(home))
      expect(missing.value).toEqual({ _tag: "none", reason: "unavailable" })
      expect(missing.warnings).toEqual([expect.stringContaining("bwrap not found (install bubblewrap)")])
      const mac = yield* withSandbox({ mode: "auto", platform: "darwin", bwrapPath: fakeBwrap(home, 0), ...dirsFor(home) }, (sandbox) => sandbox.profile(home))
      expect(mac.value).toEqual({ _tag: "none", reason: "unavailable" })
      expect(mac.warnings).toEqual([expect.stringContaining("bubblewrap needs Linux, and this is darwin")])
    }))

  it.scopedLive("on: refuses to start when bubblewrap cannot run, saying why", () =>
    Effect.gen(function* () {
      const home = yield* tempDir("sandbox-layer-")
      const exit = yield* Effect.exit(Effect.scoped(SandboxLayer.make({ mode: "on", bwrapPath: fakeBwrap(home, 1, "bwrap: setting up uid map: Permission denied"), ...dirsFor(home) })))
      expect(Exit.isFailure(exit)).toBe(true)
      if (Exit.isFailure(exit)) {
        expect(String(exit.cause)).toContain("SandboxUnavailable")
        expect(JSON.stringify(exit.cause)).toContain("setting up uid map: Permission denied")
      }
    }))
})

describe("the sandbox layer: where the network setting comes from", () => {
  /** A workspace and a user config whose settings.json say what is given (absent: no file). */
  const setup = (user: unknown, project: unknown) =>
    Effect.gen(function* () {
      const home = yield* tempDir("sandbox-network-")
      const workspace = join(home, "ws")
      const dirs = dirsFor(home)
      mkdirSync(join(workspace, ".custom-agent"), { recursive: true })
      mkdirSync(dirs.configDir, { recursive: true })
      if (user !== undefined) writeFileSync(join(dirs.configDir, "settings.json"), typeof user === "string" ? user : JSON.stringify(user))
      if (project !== undefined) writeFileSync(join(workspace, ".custom-agent", "settings.json"), typeof project === "string" ? project : JSON.stringify(project))
      // A bwrap that always works: these tests are about settings, not namespaces.
      return { workspace, options: { mode: "auto" as const, bwrapPath: fakeBwrap(home, 0), ...dirs } }
    })

  const networkOf = (user: unknown, project: unknown, extra: Partial<SandboxOptions> = {}) =>
    Effect.gen(function* () {
      const { workspace, options } = yield* setup(user, project)
      return yield* withSandbox({ ...options, ...extra }, (sandbox) => sandbox.profile(workspace))
    })

  it.scopedLive("closed by default; the user's settings open it; the project's override the user's; the flag overrides both", () =>
    Effect.gen(function* () {
      expect((yield* networkOf(undefined, undefined)).value).toEqual({ _tag: "bwrap", network: false })
      expect((yield* networkOf({ sandbox: { network: true }, other: "ignored" }, undefined)).value).toEqual({ _tag: "bwrap", network: true })
      expect((yield* networkOf({ sandbox: { network: true } }, { sandbox: { network: false } })).value).toEqual({ _tag: "bwrap", network: false })
      expect((yield* networkOf(undefined, { sandbox: { network: true } })).value).toEqual({ _tag: "bwrap", network: true })
      expect((yield* networkOf({ sandbox: {} }, { model: "x" })).value).toEqual({ _tag: "bwrap", network: false })
      expect((yield* networkOf(undefined, { sandbox: { network: false } }, { network: true })).value).toEqual({ _tag: "bwrap", network: true })
    }))

  it.scopedLive("a malformed settings file is a warning naming it, and says nothing about the network", () =>
    Effect.gen(function* () {
      const broken = yield* networkOf({ sandbox: { network: true } }, "{ not json")
      expect(broken.value).toEqual({ _tag: "bwrap", network: true })
      expect(broken.warnings).toEqual([expect.stringMatching(/sandbox setting ignored: .*\.custom-agent\/settings\.json: not valid JSON/)])
      const wrongType = yield* networkOf({ sandbox: { network: "yes" } }, undefined)
      expect(wrongType.value).toEqual({ _tag: "bwrap", network: false })
      expect(wrongType.warnings).toEqual([expect.stringContaining("settings.json")])
    }))

  it.scopedLive("the project's say goes through the function the composition gives (where trust gates it)", () =>
    Effect.gen(function* () {
      const asked: Array<string> = []
      const gated = yield* networkOf(undefined, { sandbox: { network: true } }, {
        projectNetwork: (root) => Effect.sync(() => {
          asked.push(root)
          return Option.none()
        })
      })
      expect(gated.value).toEqual({ _tag: "bwrap", network: false })
      expect(asked).toHaveLength(1)
    }))
})

describe("the sandbox layer: the user's settings as they are now", () => {
  it.scopedLive("a path the user hides, or the network they close, while the agent runs holds for its next command (round 34: read once at start)", () =>
    Effect.gen(function* () {
      const home = yield* tempDir("sandbox-current-")
      const workspace = join(home, "ws")
      const secrets = join(home, "secrets")
      const dirs = dirsFor(home)
      for (const dir of [workspace, secrets, dirs.configDir]) mkdirSync(dir, { recursive: true })
      const settings = join(dirs.configDir, "settings.json")
      writeFileSync(settings, JSON.stringify({ sandbox: { network: true } }))
      const options: SandboxOptions = { mode: "auto", bwrapPath: fakeBwrap(home, 0), ...dirs }
      const { value } = yield* withSandbox(options, (sandbox) =>
        Effect.gen(function* () {
          const wrapped = (network: boolean) => Effect.map(sandbox.wrap({ argv, workspaceRoot: workspace, cwd: workspace, profile: { _tag: "bwrap", network }, detached: false }), (out) => out.join(" "))
          const before = { profile: yield* sandbox.profile(workspace), argv: yield* wrapped(false) }
          writeFileSync(settings, JSON.stringify({ sandbox: { network: false, hide: [secrets] } }))
          const after = { profile: yield* sandbox.profile(workspace), argv: yield* wrapped(false) }
          return { before, after }
        })
      )
      expect(value.before.profile, "control: the settings opened the network").toEqual({ _tag: "bwrap", network: true })
      expect(value.before.argv, "control: the path is not hidden yet").not.toContain(secrets)
      expect(value.after.profile).toEqual({ _tag: "bwrap", network: false })
      expect(value.after.argv).toContain(`--tmpfs ${secrets}`)
    }))
})
