import { expect } from "@effect/vitest"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { allowed, type Call, contains, created, denied, editFile, leaked, PWNED, pwned, readFile, removed, type SecurityCase, sh, writeFile } from "./cases.js"
import { type Fixture, gitRepo, putLink } from "./fixture.js"
import { rememberAnswer } from "./remember.js"
import { securityCases } from "./suite.js"

/**
 * An answer remembered "for the session" or "always" covers what was asked and no more: the
 * path (or a glob the person picked), or for shell the analysed command prefix; never a whole
 * tool. Each case remembers one answer through `PermissionEngine.remember`, as the engine
 * does after a question, then runs another call through the agent.
 */
interface Remembered {
  readonly call: Call
  readonly scope: "session" | "always"
  readonly paths?: ReadonlyArray<string>
  /** Remember it in another session than the turn's. */
  readonly otherSession?: boolean
}

const after = (
  name: string,
  answer: Remembered,
  call: Call,
  expectation: SecurityCase["expect"],
  setup?: (fx: Fixture) => void
): SecurityCase => ({
  name,
  before: (fx, sessionId) =>
    rememberAnswer(fx, answer.otherSession === true ? "ses_someone_else" : sessionId, answer.call, "allow", answer.scope, answer.paths),
  calls: [call],
  expect: expectation,
  ...(setup === undefined ? {} : { setup })
})

const alwaysWriteA: Remembered = { call: writeFile("a.txt", "fine\n"), scope: "always" }
const sessionWriteA: Remembered = { call: writeFile("a.txt", "fine\n"), scope: "session" }
const alwaysGitStatus: Remembered = { call: sh("git status"), scope: "always" }
const VICTIM = "victim.txt"

const holds = (path: string, text: string) => (fx: Fixture) => {
  const file = join(fx.ws, path)
  expect(existsSync(file) && readFileSync(file, "utf8"), `${path} holds the new text`).toBe(text)
}

const cases: ReadonlyArray<SecurityCase> = [
  // The answer itself holds (else every refusal below would prove nothing).
  after("always for write_file a.txt covers a.txt again", alwaysWriteA, writeFile("a.txt", "again\n"), allowed(holds("a.txt", "again\n"), ["remembered"])),
  after("always for git status covers git status -s", alwaysGitStatus, sh("git status -s"), allowed(undefined, ["remembered"]), gitRepo),
  after(
    "always for write_file with the glob src/** covers src/b.ts",
    { call: writeFile("src/a.ts", "fine\n"), scope: "always", paths: ["src/**"] },
    writeFile("src/b.ts", "b\n"),
    allowed(holds("src/b.ts", "b\n"), ["remembered"])
  ),
  // Writes: the path, not the tool.
  after("always for write_file a.txt does not cover b.txt", alwaysWriteA, writeFile("b.txt"), denied(contains("b.txt", "pwned"))),
  after("session for write_file a.txt does not cover b.txt", sessionWriteA, writeFile("b.txt"), denied(contains("b.txt", "pwned"))),
  after("always for write_file a.txt does not cover the project rules file", alwaysWriteA, writeFile(".custom-agent/permissions.json"), denied()),
  after("always for write_file a.txt does not cover .git/config", alwaysWriteA, writeFile(".git/config"), denied()),
  after("always for write_file a.txt does not cover a file outside", alwaysWriteA, writeFile("{OUT}/a.txt"), denied(created("{OUT}/a.txt"))),
  after("always for write_file a.txt does not cover edit_file a.txt", alwaysWriteA, editFile("a.txt", "alpha", "pwned"), denied(contains("a.txt", "pwned"))),
  after(
    "always for edit_file a.txt does not cover edit_file b.txt",
    { call: editFile("a.txt", "alpha", "ALPHA"), scope: "always" },
    editFile("b.txt", "beta", "pwned"),
    denied(contains("b.txt", "pwned"))
  ),
  after("a session answer does not carry to another session", { ...sessionWriteA, otherSession: true }, writeFile("a.txt"), denied(contains("a.txt", "pwned"))),
  after(
    "always for write_file with the glob src/** does not cover a link out of src",
    { call: writeFile("src/a.ts", "fine\n"), scope: "always", paths: ["src/**"] },
    writeFile("src/link/target.txt"),
    denied(contains("{OUT}/target.txt", "pwned")),
    (fx) => putLink(fx, "src/link", "../../outside")
  ),
  after(
    "always for reading one outside file does not cover another",
    { call: readFile("{OUT}/secret.txt"), scope: "always" },
    readFile("{OUT}/target.txt"),
    denied(leaked)
  ),
  // Shell: the analysed prefix, not the line's first words.
  after("always for git status does not cover git push", alwaysGitStatus, sh("git push origin HEAD:main"), denied(created("{OUT}/remote.git/refs/heads/main")), gitRepo),
  after("always for git status does not cover git status; rm", alwaysGitStatus, sh(`git status; rm ${VICTIM}`), denied(removed(VICTIM)), gitRepo),
  after("always for git status does not cover git status && touch", alwaysGitStatus, sh(`git status && touch ${PWNED}`), denied(pwned), gitRepo),
  after("always for git status does not cover a redirection outside", alwaysGitStatus, sh(`git status > ${PWNED}`), denied(pwned), gitRepo),
  after("always for git status does not cover $() in its arguments", alwaysGitStatus, sh(`git status $(touch ${PWNED})`), denied(pwned), gitRepo),
  after(
    "always for git status does not cover git -c core.fsmonitor=... status",
    alwaysGitStatus,
    sh(`git -c core.fsmonitor='touch ${PWNED}' status`),
    denied(pwned),
    gitRepo
  ),
  after("session for npm test does not cover npm test; touch", { call: sh("npm test"), scope: "session" }, sh(`npm test; touch ${PWNED}`), denied(pwned)),
  after("always for echo hi does not cover echo hi > outside", { call: sh("echo hi"), scope: "always" }, sh(`echo hi > ${PWNED}`), denied(pwned)),
  after(
    "an answer for a line that cannot be read is not remembered",
    { call: sh(`eval "touch ${PWNED}"`), scope: "always" },
    sh(`eval "touch ${PWNED}"`),
    denied(pwned)
  )
]

securityCases("remembered answers are scoped", cases)
