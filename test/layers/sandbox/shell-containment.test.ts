import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { homedir } from "node:os"
import { join } from "node:path"
import { NETWORK_NOTE, WRITE_NOTE } from "../../../src/layers/sandbox/notes.js"
import { makeShellTool } from "../../../src/layers/tools/shell.js"
import type { SandboxShape } from "../../../src/services/Sandbox.js"
import { tempDir } from "../../support/mcp-fixtures.js"
import { APPROVALS, bwrapInstalled, type Dirs, hostListener, makeDirs, realSandbox, sandboxSuite, USER_RULES } from "../../support/sandbox.js"
import { prepare, run } from "../tools/workspace-fixture.js"

/** Runs `command` as the shell tool would once allowed: prepared, then executed. */
const sh = (sandbox: SandboxShape, dirs: Dirs, command: string) => run(makeShellTool(sandbox), { command }, dirs.workspace)

/** A fresh workspace with its directories, and the sandbox that holds them. */
const setup = (options: { readonly inside?: boolean; readonly network?: boolean } = {}) =>
  Effect.gen(function* () {
    const dirs = yield* makeDirs(options)
    const sandbox = yield* realSandbox(dirs, options.network === undefined ? {} : { network: options.network })
    return { dirs, sandbox }
  })

describe.skipIf(!bwrapInstalled)(sandboxSuite("the shell in the sandbox, every call allowed"), () => {
  it.live("records the profile it runs under: bubblewrap, network closed", () =>
    Effect.gen(function* () {
      const { dirs, sandbox } = yield* setup()
      const call = yield* prepare(makeShellTool(sandbox), { command: "true" }, dirs.workspace)
      expect(call.sandbox).toEqual({ _tag: "bwrap", network: false })
    }).pipe(Effect.scoped))

  it.live("writes inside the workspace and to a /tmp of its own, which the host never sees", () =>
    Effect.gen(function* () {
      const { dirs, sandbox } = yield* setup()
      const marker = `sandbox-tmp-${process.pid}-${Date.now()}`
      const result = yield* sh(sandbox, dirs, `echo made > inside.txt && mkdir -p sub && echo deep > sub/f && echo t > /tmp/${marker} && cat /tmp/${marker}`)
      expect(result).toMatchObject({ isError: false, output: "t\n\n[exit code 0]" })
      expect(readFileSync(join(dirs.workspace, "inside.txt"), "utf8")).toBe("made\n")
      expect(readFileSync(join(dirs.workspace, "sub/f"), "utf8")).toBe("deep\n")
      expect(existsSync(join("/tmp", marker))).toBe(false)
    }).pipe(Effect.scoped))

  it.live("cannot write outside the workspace, and the result says the sandbox refused it", () =>
    Effect.gen(function* () {
      const { dirs, sandbox } = yield* setup()
      writeFileSync(join(dirs.outside, "kept.txt"), "original\n")
      const home = join(homedir(), `.sandbox-test-${process.pid}`)
      const result = yield* sh(sandbox, dirs, `echo pwned > ${dirs.outside}/new.txt; echo pwned > ${dirs.outside}/kept.txt; rm ${dirs.outside}/kept.txt; echo pwned > ${home}`)
      expect(result.isError).toBe(true)
      expect(result.output).toContain("Read-only file system")
      expect(result.output).toContain(WRITE_NOTE)
      expect(existsSync(join(dirs.outside, "new.txt"))).toBe(false)
      expect(readFileSync(join(dirs.outside, "kept.txt"), "utf8")).toBe("original\n")
      expect(existsSync(home)).toBe(false)
    }).pipe(Effect.scoped))

  it.live("does not even see the host's /tmp: a directory there is left alone", () =>
    Effect.gen(function* () {
      const { dirs, sandbox } = yield* setup()
      const hostTmp = yield* tempDir("sandbox-host-tmp-")
      writeFileSync(join(hostTmp, "kept.txt"), "original\n")
      const result = yield* sh(sandbox, dirs, `ls ${hostTmp}; echo pwned > ${hostTmp}/kept.txt`)
      expect(result.output).toContain("No such file or directory")
      expect(readFileSync(join(hostTmp, "kept.txt"), "utf8")).toBe("original\n")
    }).pipe(Effect.scoped))

  it.live("cannot rewrite .custom-agent/permissions.json, nor move .custom-agent aside to make a new one", () =>
    Effect.gen(function* () {
      const { dirs, sandbox } = yield* setup()
      const rules = join(dirs.workspace, ".custom-agent", "permissions.json")
      mkdirSync(join(dirs.workspace, ".custom-agent"))
      writeFileSync(rules, '{"rules":[]}\n')
      const result = yield* sh(
        sandbox,
        dirs,
        `echo '{"rules":[{"tool":"shell","decision":"allow"}]}' > .custom-agent/permissions.json; ` +
          "rm -f .custom-agent/permissions.json; mv .custom-agent moved; rm -rf .custom-agent; " +
          "mkdir -p moved2/.custom-agent && echo evil > moved2/.custom-agent/permissions.json && mv moved2/.custom-agent .custom-agent"
      )
      expect(result.isError).toBe(true)
      expect(result.output).toContain(WRITE_NOTE)
      expect(readFileSync(rules, "utf8")).toBe(USER_RULES)
      expect(existsSync(join(dirs.workspace, "moved"))).toBe(false)
    }).pipe(Effect.scoped))

  it.live("cannot create .custom-agent/ where there was none: it is there, empty and read-only, only while the command runs", () =>
    Effect.gen(function* () {
      const { dirs, sandbox } = yield* setup()
      const result = yield* sh(sandbox, dirs, "ls -A .custom-agent && mkdir -p .custom-agent; echo '{}' > .custom-agent/permissions.json")
      expect(result.isError).toBe(true)
      expect(result.output).toContain(WRITE_NOTE)
      expect(existsSync(join(dirs.workspace, ".custom-agent"))).toBe(false)
    }).pipe(Effect.scoped))

  it.live("cannot make a repository (and its hooks) where there was none", () =>
    Effect.gen(function* () {
      const { dirs, sandbox } = yield* setup()
      rmSync(join(dirs.workspace, ".git"), { recursive: true })
      const result = yield* sh(sandbox, dirs, "mkdir -p .git/hooks; echo 'touch pwned' > .git/hooks/pre-commit; git init -q")
      expect(result.isError).toBe(true)
      expect(result.output).toContain(WRITE_NOTE)
      expect(existsSync(join(dirs.workspace, ".git"))).toBe(false)
    }).pipe(Effect.scoped))

  it.live("cannot change anything in .git (hooks, config, commondir, the index), nor swap .git for a repository of its own", () =>
    Effect.gen(function* () {
      const { dirs, sandbox } = yield* setup()
      const config = readFileSync(join(dirs.workspace, ".git/config"), "utf8")
      const attack = yield* sh(
        sandbox,
        dirs,
        "echo 'echo pwned' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit; " +
          "echo '[core]\n\tfsmonitor = touch /tmp/pwned' >> .git/config; git config core.hooksPath /tmp; " +
          "mv .git .git-old; mv .git/hooks .git/hooks-old; mv .git/config .git/config-old"
      )
      expect(attack.isError).toBe(true)
      expect(attack.output).toContain(WRITE_NOTE)
      expect(existsSync(join(dirs.workspace, ".git/hooks/pre-commit"))).toBe(false)
      expect(readFileSync(join(dirs.workspace, ".git/config"), "utf8")).toBe(config)
      expect(existsSync(join(dirs.workspace, ".git-old"))).toBe(false)

      // What steers the user's next git command on the host: another repository through
      // `commondir`, a gitlink to a planted nested repository through the index.
      const planted = yield* sh(sandbox, dirs, "echo ../../elsewhere > .git/commondir; mkdir -p sub && git -C sub init -q && echo hi > f && git add f sub")
      expect(planted.isError).toBe(true)
      expect(existsSync(join(dirs.workspace, ".git/commondir"))).toBe(false)
      expect(existsSync(join(dirs.workspace, ".git/index"))).toBe(false)
    }).pipe(Effect.scoped))

  it.live("a .git file (a worktree's) cannot be pointed at another repository", () =>
    Effect.gen(function* () {
      const { dirs, sandbox } = yield* setup()
      rmSync(join(dirs.workspace, ".git"), { recursive: true })
      writeFileSync(join(dirs.workspace, ".git"), `gitdir: ${dirs.outside}\n`)
      const result = yield* sh(sandbox, dirs, "echo 'gitdir: evil' > .git; rm -f .git")
      expect(result.isError).toBe(true)
      expect(readFileSync(join(dirs.workspace, ".git"), "utf8")).toBe(`gitdir: ${dirs.outside}\n`)
    }).pipe(Effect.scoped))

  for (const inside of [false, true]) {
    it.live(`cannot change the config or the data directory (${inside ? "inside" : "outside"} the workspace)`, () =>
      Effect.gen(function* () {
        const { dirs, sandbox } = yield* setup({ inside })
        const result = yield* sh(
          sandbox,
          dirs,
          `echo evil > ${dirs.configDir}/permissions.json; echo evil > ${dirs.configDir}/settings.json; ` +
            `echo evil > ${dirs.dataDir}/approvals.json; mv ${dirs.dataDir} ${dirs.dataDir}-moved; mv ${dirs.configDir}/.. ${dirs.workspace}/elsewhere`
        )
        expect(result.isError).toBe(true)
        expect(readFileSync(join(dirs.configDir, "permissions.json"), "utf8")).toBe(USER_RULES)
        expect(existsSync(join(dirs.configDir, "settings.json"))).toBe(false)
        expect(readFileSync(join(dirs.dataDir, "approvals.json"), "utf8")).toBe(APPROVALS)
        expect(existsSync(`${dirs.dataDir}-moved`)).toBe(false)
      }).pipe(Effect.scoped))
  }

  it.live("config and data directories that do not exist yet cannot be created from inside", () =>
    Effect.gen(function* () {
      const dirs = yield* makeDirs()
      const configDir = join(dirs.workspace, "not-yet", "config")
      const dataDir = join(dirs.workspace, "data")
      const sandbox = yield* realSandbox({ configDir, dataDir })
      const result = yield* sh(sandbox, dirs, `mkdir -p ${configDir}; echo evil > ${configDir}/permissions.json; echo evil > ${dataDir}/approvals.json`)
      expect(result.isError).toBe(true)
      expect(existsSync(join(configDir, "permissions.json"))).toBe(false)
      expect(existsSync(join(dataDir, "approvals.json"))).toBe(false)
    }).pipe(Effect.scoped))

  it.live("drops every capability: even as root it cannot unmount or remount what holds it", () =>
    Effect.gen(function* () {
      const { dirs, sandbox } = yield* setup()
      mkdirSync(join(dirs.workspace, ".custom-agent"))
      const result = yield* sh(sandbox, dirs, "umount .custom-agent; mount -o remount,rw /; grep CapEff /proc/self/status; touch .custom-agent/x")
      expect(result.output).toContain("CapEff:\t0000000000000000")
      expect(existsSync(join(dirs.workspace, ".custom-agent/x"))).toBe(false)
    }).pipe(Effect.scoped))

  it.live("cannot connect to a listener on the host's 127.0.0.1, and says the network is off", () =>
    Effect.gen(function* () {
      const { dirs, sandbox } = yield* setup()
      const listener = yield* hostListener
      const result = yield* sh(sandbox, dirs, `exec 3<>/dev/tcp/127.0.0.1/${listener.port} && cat <&3`)
      expect(result.isError).toBe(true)
      expect(result.output).toContain("Connection refused")
      expect(result.output).toContain(NETWORK_NOTE)
      expect(listener.connections()).toBe(0)
      const node = yield* sh(sandbox, dirs, `${process.execPath} -e 'require("net").connect(${listener.port}, "127.0.0.1").on("error", (e) => { console.log(e.code); process.exit(1) })'`)
      expect(node.output).toContain("ECONNREFUSED")
      expect(listener.connections()).toBe(0)
    }).pipe(Effect.scoped))

  it.live("connects to it when the network is opened (flag), and records that profile", () =>
    Effect.gen(function* () {
      const { dirs, sandbox } = yield* setup({ network: true })
      const listener = yield* hostListener
      const call = yield* prepare(makeShellTool(sandbox), { command: `exec 3<>/dev/tcp/127.0.0.1/${listener.port} && cat <&3` }, dirs.workspace)
      expect(call.sandbox).toEqual({ _tag: "bwrap", network: true })
      const result = yield* call.execute
      expect(result).toMatchObject({ isError: false, output: "hello from the host\n\n[exit code 0]" })
      expect(listener.connections()).toBe(1)
      // Open network, same file-system rules.
      const write = yield* sh(sandbox, dirs, `echo pwned > ${dirs.outside}/x`)
      expect(write.output).toContain(WRITE_NOTE)
      expect(write.output).not.toContain(NETWORK_NOTE)
    }).pipe(Effect.scoped))

  it.live("a symbolic link inside the workspace in front of a protected path is refused, not run unprotected", () =>
    Effect.gen(function* () {
      const { dirs, sandbox } = yield* setup()
      mkdirSync(join(dirs.workspace, "real-agent-dir"))
      symlinkSync(join(dirs.workspace, "real-agent-dir"), join(dirs.workspace, ".custom-agent"))
      const result = yield* sh(sandbox, dirs, "echo ran > ran.txt")
      expect(result.isError).toBe(true)
      expect(result.output).toContain("could not run the command in the sandbox")
      expect(result.output).toContain("symbolic link")
      expect(existsSync(join(dirs.workspace, "ran.txt"))).toBe(false)
    }).pipe(Effect.scoped))
})

