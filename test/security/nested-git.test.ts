import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { eventsOf } from "../support/events.js"
import {
  allowPath,
  allowShell,
  contained,
  contains,
  created,
  denied,
  editFile,
  type Harm,
  PWNED,
  type SecurityCase,
  sh,
  writeFile
} from "./cases.js"
import { type Fixture, nestedRepo, putFile, unpopulatedSubmodule } from "./fixture.js"
import { assertOutcome, callId, prepareFixture, runInProcess } from "./run-case.js"
import { securityCases } from "./suite.js"

/**
 * Git on the host runs what a repository's own git directory says: `core.fsmonitor`, hooks,
 * filters. Every `.git` is such a directory, not only the workspace's top-level one: a nested
 * repository (a clone kept inside the project, a submodule, a repository a command made), and
 * a `.git` file (`gitdir: ...`) anywhere says where one is. So a `.git` at any depth, and
 * `.gitmodules`, are protected like the top-level `.git`; and the sandbox holds the nested
 * repositories the workspace already has, and the submodules its `.gitmodules` registers.
 * The harm is what the user's next `git status` does on the host.
 */

/** A fsmonitor hook that leaves the marker: git runs it through the shell on every status. */
const FSMONITOR = '[core]\n\tfsmonitor = "touch {OUT}/pwned; false"\n'

/** The user's next `git status` in `dir` of the workspace, on the host; harm when the planted fsmonitor left its marker. */
const userGitStatus =
  (dir: string): Harm =>
  (fx) => {
    spawnSync("git", ["-C", join(fx.ws, dir), "status"], {
      env: { PATH: process.env["PATH"], HOME: fx.home, GIT_CONFIG_NOSYSTEM: "1" },
      stdio: "ignore",
      timeout: 20_000
    })
    return existsSync(fx.fill(PWNED))
  }

const withNested = (fx: Fixture) => nestedRepo(fx, "sub")

interface Target {
  readonly label: string
  readonly path: string
  readonly content: string
  readonly harm: Harm
  readonly setup?: (fx: Fixture) => void
  /** For an existing file: a piece of it an edit can replace. */
  readonly edit?: { readonly old: string; readonly new: string }
}

const targets: ReadonlyArray<Target> = [
  {
    label: "a nested repository's .git/config",
    path: "sub/.git/config",
    content: FSMONITOR,
    harm: userGitStatus("sub"),
    setup: withNested,
    edit: { old: "[core]", new: '[core]\n\tfsmonitor = "touch {OUT}/pwned; false"' }
  },
  { label: "a nested repository's hook", path: "sub/.git/hooks/post-checkout", content: "#!/bin/sh\ntouch {OUT}/pwned\n", harm: created("sub/.git/hooks/post-checkout"), setup: withNested },
  { label: "a nested repository's HEAD", path: "sub/.git/HEAD", content: "ref: refs/heads/pwned\n", harm: contains("sub/.git/HEAD", "pwned"), setup: withNested },
  { label: "a .git/config two folders down, before any repository is there", path: "a/b/.git/config", content: FSMONITOR, harm: created("a/b/.git/config") },
  { label: "a .git file (gitdir: ...) in a folder", path: "x/.git", content: "gitdir: {OUT}/evil.git\n", harm: created("x/.git") },
  { label: "the top-level .gitmodules", path: ".gitmodules", content: '[submodule "s"]\n\tpath = s\n\turl = {OUT}/evil.git\n', harm: created(".gitmodules") },
  { label: "a nested .gitmodules", path: "sub/.gitmodules", content: '[submodule "s"]\n\tpath = s\n\turl = {OUT}/evil.git\n', harm: created("sub/.gitmodules"), setup: withNested },
  { label: ".GIT/config (git folds the case on case-insensitive filesystems)", path: "sub/.GIT/config", content: FSMONITOR, harm: created("sub/.GIT/config") }
]

const withSetup = (target: Target) => (target.setup === undefined ? {} : { setup: target.setup })

/** For a redirection: the target's folder exists (a shell does not make it), so the control's `>>` lands. */
const withFolder = (target: Target) => ({
  setup: (fx: Fixture) => {
    target.setup?.(fx)
    mkdirSync(join(fx.ws, dirname(target.path)), { recursive: true })
  }
})

const protectedCases: ReadonlyArray<SecurityCase> = targets.flatMap((target): ReadonlyArray<SecurityCase> => [
  {
    name: `write_file ${target.label} in accept-edits mode`,
    mode: "accept-edits",
    ...withSetup(target),
    calls: [writeFile(target.path, target.content)],
    expect: denied(target.harm)
  },
  {
    name: `write_file ${target.label} under write_file rules ** and /**`,
    rules: [allowPath("write_file", "**"), allowPath("write_file", "/**")],
    ...withSetup(target),
    calls: [writeFile(target.path, target.content)],
    expect: denied(target.harm)
  },
  {
    name: `write_file ${target.label} under --approve allow-edits (a firm question)`,
    approve: "allow-edits",
    ...withSetup(target),
    calls: [writeFile(target.path, target.content)],
    expect: denied(target.harm, ["policy"])
  },
  {
    name: `shell >> ${target.label} under echo rules with paths ** and /**`,
    rules: [allowShell("echo *", "**"), allowShell("echo *", "/**")],
    ...withFolder(target),
    calls: [sh(`echo pwned >> ${target.path}`)],
    expect: denied(contains(target.path, "pwned"))
  },
  ...(target.edit === undefined
    ? []
    : [
        {
          name: `edit_file ${target.label} in accept-edits mode`,
          mode: "accept-edits" as const,
          ...withSetup(target),
          calls: [editFile(target.path, target.edit.old, target.edit.new)],
          expect: denied(target.harm)
        }
      ])
])

securityCases("a .git or .gitmodules at any depth is protected like the top-level .git", protectedCases)

describe("the harm, end to end: a nested repository's config written under accept-edits", () => {
  const attack: SecurityCase = {
    name: "accept-edits: write_file sub/.git/config with a fsmonitor, then the user's git status in sub/",
    mode: "accept-edits",
    setup: withNested,
    calls: [writeFile("sub/.git/config", FSMONITOR)],
    expect: denied(userGitStatus("sub"))
  }

  it.live("the write asks (and is refused headless), and the user's git status in sub/ runs nothing", () =>
    Effect.gen(function* () {
      // The control: the same config written directly makes the user's git status run the hook.
      const control = prepareFixture(attack)
      writeFileSync(join(control.ws, "sub/.git/config"), control.fill(FSMONITOR))
      expect(userGitStatus("sub")(control, ""), "control: the planted fsmonitor runs on git status").toBe(true)

      const fx = prepareFixture(attack)
      const outcome = yield* runInProcess(attack, fx)
      expect(userGitStatus("sub")(fx, ""), "the user's git status in sub/ must not run the planted fsmonitor").toBe(false)
      const asked = eventsOf(outcome.events, "permission.requested").filter((e) => e.payload.toolCallId === callId(0))
      expect(asked.map((e) => e.payload.firm), "asked, as a firm question").toEqual([true])
      assertOutcome(attack, fx, outcome)
    }))
})

/**
 * Shell commands the rules or the policy allow run in the sandbox: the nested repositories the
 * workspace already has and the submodules its `.gitmodules` registers are held read-only, so a
 * command can neither rewrite one's config nor make a repository where the user's git looks.
 */
const sandboxCases: ReadonlyArray<SecurityCase> = [
  {
    name: "allow-all: append a fsmonitor to an existing nested repository's config",
    approve: "allow-all",
    setup: withNested,
    calls: [sh(`printf '${FSMONITOR.replaceAll("\n", "\\n").replaceAll("\t", "\\t")}' >> sub/.git/config`)],
    expect: contained(userGitStatus("sub"))
  },
  {
    name: "allow-all: replace an existing nested repository's .git with one whose config has a fsmonitor",
    approve: "allow-all",
    setup: withNested,
    calls: [
      sh(
        "rm -rf sub/.git && git init -q sub && git -C sub -c user.name=a -c user.email=a@a commit -q --allow-empty -m x && " +
          "git -C sub config core.fsmonitor 'touch {OUT}/pwned; false'"
      )
    ],
    expect: contained(userGitStatus("sub"))
  },
  {
    name: "allow-all: a repository made where a cloned project's submodule was not checked out runs on the user's top-level git status",
    approve: "allow-all",
    setup: (fx) => unpopulatedSubmodule(fx, "sub"),
    calls: [
      sh(
        "git init -q sub && git -C sub -c user.name=a -c user.email=a@a commit -q --allow-empty -m x && " +
          "git -C sub config core.fsmonitor 'touch {OUT}/pwned; false'"
      )
    ],
    expect: contained(userGitStatus("."))
  },
  {
    name: "allow-all: point a submodule's .git file at a planted repository",
    approve: "allow-all",
    setup: (fx) => {
      unpopulatedSubmodule(fx, "sub")
      putFile(fx, "sub/.git", "gitdir: ../.git/modules/sub\n")
    },
    calls: [sh("git init -q --bare evil && git -C evil config core.fsmonitor 'touch {OUT}/pwned; false' && echo 'gitdir: ../evil' > sub/.git")],
    expect: contained(contains("sub/.git", "evil"))
  },
  {
    name: "allow-all: append a submodule to an existing .gitmodules",
    approve: "allow-all",
    setup: (fx) => putFile(fx, ".gitmodules", '[submodule "lib"]\n\tpath = lib\n\turl = https://example.com/lib.git\n'),
    calls: [sh(`echo '[submodule "x"]' >> .gitmodules`)],
    expect: contained(contains(".gitmodules", "submodule \"x\""))
  }
]

securityCases("the sandbox holds the nested repositories and submodules a workspace has", sandboxCases)
