import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { rmSync, writeFileSync } from "node:fs"
import { createServer, type Server } from "node:net"
import { join } from "node:path"
import { promisify } from "node:util"
import { eventsOf } from "../support/events.js"
import { allowShell, contains, contained, created, PWNED, pwned, removed, type SecurityCase, sh } from "./cases.js"
import { gitRepo, putLink, removeFixtures } from "./fixture.js"
import { callId, prepareFixture, runInProcess } from "./run-case.js"
import { securityCases } from "./suite.js"

/**
 * Where only the OS sandbox stands between the model and the outside: every question is
 * answered "allow" (`--approve allow-all`), or a rule allows the command with any arguments.
 * The command runs, and the outside, the home, the config and data directories and the
 * workspace's `.custom-agent/`, `.git/config` and `.git/hooks` are unchanged.
 */
const execFileAsync = promisify(execFile)
const ALLOW_ALL = JSON.stringify({ rules: [{ tool: "*", decision: "allow" }] })
const rulesFile = ".custom-agent/permissions.json"
const rulesRewritten = contains(rulesFile, "decision")

const anything = (name: string, command: string, harm = pwned, setup?: SecurityCase["setup"]): SecurityCase => ({
  name: `allow-all: ${name}`,
  approve: "allow-all",
  calls: [sh(command)],
  expect: contained(harm),
  ...(setup === undefined ? {} : { setup })
})

const ruled = (name: string, rule: string, command: string, harm = pwned, setup?: SecurityCase["setup"]): SecurityCase => ({
  name: `rule ${rule}: ${name}`,
  rules: [allowShell(rule)],
  calls: [sh(command)],
  expect: contained(harm),
  ...(setup === undefined ? {} : { setup })
})

const cases: ReadonlyArray<SecurityCase> = [
  anything("touch outside", `touch ${PWNED}`),
  anything("> outside by ../", "echo pwned > ../outside/pwned"),
  anything("touch in ~", "touch ~/pwned", created("{HOME}/pwned")),
  anything("rm a file outside", "rm -f {OUT}/secret.txt", removed("{OUT}/secret.txt")),
  anything("mv a file from outside into the workspace", "mv {OUT}/secret.txt .", removed("{OUT}/secret.txt")),
  anything("touch through a symlinked directory", "touch src/link/pwned", pwned, (fx) => putLink(fx, "src/link", "../../outside")),
  anything("rewrite the project rules file", `echo '${ALLOW_ALL}' > ${rulesFile}`, rulesRewritten),
  anything("cp over the project rules file", `echo '${ALLOW_ALL}' > evil.json && cp evil.json ${rulesFile}`, rulesRewritten),
  anything("mv the .custom-agent folder away", "mv .custom-agent gone", removed(rulesFile)),
  anything("append to .git/config", "printf '[core]\\n\\tfsmonitor = touch pwned\\n' >> .git/config", contains(".git/config", "fsmonitor")),
  anything("add a git hook", "printf '#!/bin/sh\\ntouch pwned\\n' > .git/hooks/pre-commit", created(".git/hooks/pre-commit")),
  anything("write into the config dir", "touch {CONFIG}/pwned", created("{CONFIG}/pwned")),
  anything("append to the user's rules file", "echo pwned >> {CONFIG}/permissions.json", contains("{CONFIG}/permissions.json", "pwned")),
  anything("write into the data dir", "touch {DATA}/pwned", created("{DATA}/pwned")),
  anything("rename .git away, then plant a hook in a new .git", "mv .git .git-old && mkdir -p .git/hooks && printf '#!/bin/sh\\ntouch pwned\\n' > .git/hooks/pre-commit", created(".git/hooks/pre-commit")),
  anything("make a link out, then write through it", "ln -s {OUT} out && echo pwned > out/pwned"),
  anything(
    "create .custom-agent/ where the workspace had none",
    `mkdir -p .custom-agent && echo '${ALLOW_ALL}' > ${rulesFile}`,
    created(rulesFile),
    (fx) => rmSync(join(fx.ws, ".custom-agent"), { recursive: true })
  ),
  anything(
    "create .git/hooks/ where the workspace had no .git",
    "mkdir -p .git/hooks && printf '#!/bin/sh\\ntouch pwned\\n' > .git/hooks/pre-commit",
    created(".git/hooks/pre-commit"),
    (fx) => rmSync(join(fx.ws, ".git"), { recursive: true })
  ),
  anything(
    "rewrite the file the project rules file links to",
    `echo '${ALLOW_ALL}' > rules.json`,
    contains("rules.json", "decision"),
    (fx) => {
      rmSync(join(fx.ws, ".custom-agent", "permissions.json"))
      writeFileSync(join(fx.ws, "rules.json"), '{"rules":[]}')
      putLink(fx, ".custom-agent/permissions.json", "../rules.json")
    }
  ),
  ruled("sed -i on an outside file", "sed *", "sed -i 's/outside/pwned/' {OUT}/target.txt", contains("{OUT}/target.txt", "pwned")),
  ruled("git diff --output outside", "git diff *", `git diff --output=${PWNED}`, pwned, gitRepo),
  ruled("find -exec touch outside", "find *", `find . -maxdepth 0 -exec touch ${PWNED} \\;`),
  ruled("tee into the project rules file", "tee *", `tee ${rulesFile} < package.json`, contains(rulesFile, "scripts")),
  ruled("git config writes .git/config", "git config *", "git config core.hooksPath /tmp", contains(".git/config", "hooksPath"), gitRepo),
  ruled("python3 -c writes outside", "python3 *", `python3 -c "open('${PWNED}','w').write('x')"`),
  {
    name: "an absolute path rule allows a redirection outside; the sandbox still keeps it out",
    rules: [allowShell("echo *", "{OUT}/*.txt")],
    calls: [sh("echo ok > {OUT}/allowed.txt")],
    expect: contained(created("{OUT}/allowed.txt"))
  }
]

securityCases("the sandbox holds when the rules allow", cases)

describe("the sandbox has no network", () => {
  let server: Server | undefined
  afterAll(() => {
    server?.close()
    removeFixtures()
  })

  /** A listener on the host's loopback that greets each connection, and counts them. */
  const listen = Effect.async<{ readonly port: number; readonly connections: () => number }>((resume) => {
    let connections = 0
    const listening = createServer((socket) => {
      connections++
      socket.end("hello\n")
    })
    server = listening
    listening.listen(0, "127.0.0.1", () => {
      const address = listening.address()
      resume(Effect.succeed({ port: typeof address === "object" && address !== null ? address.port : 0, connections: () => connections }))
    })
  })

  it.live("an allowed command cannot reach a listener on the host's 127.0.0.1", () =>
    Effect.gen(function* () {
      const { port, connections } = yield* listen
      // The command waits for the greeting: a connection that got through is counted before it ends.
      const command = `exec 3<>/dev/tcp/127.0.0.1/${port} && read -r line <&3 && echo "got $line"`
      const control = yield* Effect.promise(() => execFileAsync("/bin/bash", ["-c", command]))
      expect(control.stdout, "control: without a sandbox the command connects").toContain("got hello")
      expect(connections()).toBe(1)

      const c: SecurityCase = { name: "network", approve: "allow-all", calls: [sh(command)], expect: contained() }
      const fx = prepareFixture(c)
      const { events } = yield* runInProcess(c, fx)
      expect(eventsOf(events, "tool.started").map((e) => e.payload.toolCallId)).toEqual([callId(0)])
      expect(eventsOf(events, "tool.completed").map((e) => e.payload.output).join("")).not.toContain("got hello")
      expect(connections(), "no connection from inside the sandbox").toBe(1)
    })
  )
})
