import { expect } from "@effect/vitest"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import type { ApprovalPolicy } from "../../src/layers/approvals/policy.js"
import { allowed, type Call, contains, created, denied, editFile, type Harm, leaked, PWNED, pwned, readFile, removed, type SecurityCase, sh, writeFile } from "./cases.js"
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
  /** The answer given: allow unless the case says deny. */
  readonly decision?: "allow" | "deny"
  readonly paths?: ReadonlyArray<string>
  /** Remember it in another session than the turn's. */
  readonly otherSession?: boolean
}

const after = (
  name: string,
  answer: Remembered,
  call: Call,
  expectation: SecurityCase["expect"],
  setup?: (fx: Fixture) => void,
  approve?: ApprovalPolicy
): SecurityCase => ({
  name,
  before: (fx, sessionId) =>
    rememberAnswer(fx, answer.otherSession === true ? "ses_someone_else" : sessionId, answer.call, answer.decision ?? "allow", answer.scope, answer.paths),
  calls: [call],
  expect: expectation,
  ...(setup === undefined ? {} : { setup }),
  ...(approve === undefined ? {} : { approve })
})

/**
 * A lasting deny covers the path whatever tool touches it the same way, and the command
 * wherever it stands in a line. The headless policy here would allow the call (`allow-edits`,
 * `allow-reads`, `allow-all`), so only the remembered deny stands between it and the harm.
 */
const afterDeny = (name: string, answer: Call, call: Call, harm: Harm, approve: ApprovalPolicy, setup?: (fx: Fixture) => void): SecurityCase =>
  after(name, { call: answer, scope: "always", decision: "deny" }, call, denied(harm, ["remembered"]), setup, approve)

const grep = (path: string): Call => ({ tool: "grep", input: { pattern: ".", path } })

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
  // A path answer covers the path for every file tool that changes it: a write allow covers an edit.
  after(
    "always for write_file a.txt covers edit_file a.txt (the same change to the same file)",
    alwaysWriteA,
    editFile("a.txt", "alpha", "edited"),
    allowed(holds("a.txt", "edited\n"), ["remembered"])
  ),
  after("always for write_file a.txt does not cover a shell redirection into it", alwaysWriteA, sh("echo pwned > a.txt"), denied(contains("a.txt", "pwned"))),
  after(
    "always for list_files outside does not cover reading it with grep",
    { call: { tool: "list_files", input: { path: "{OUT}" } }, scope: "always" },
    grep("{OUT}"),
    denied(leaked)
  ),
  // A path that looks like a glob is remembered as that one name, never as a wildcard.
  after("always for write_file of a file named * does not cover b.txt", { call: writeFile("*", "fine\n"), scope: "always" }, writeFile("b.txt"), denied(contains("b.txt", "pwned"))),
  after(
    "always for write_file of a file named {a,b}.txt does not cover b.txt",
    { call: writeFile("{a,b}.txt", "fine\n"), scope: "always" },
    writeFile("b.txt"),
    denied(contains("b.txt", "pwned"))
  ),
  // A deny covers what the person meant: the file, whatever tool changes or reads it.
  afterDeny("deny always for edit_file a.txt denies write_file a.txt", editFile("a.txt", "alpha", "ALPHA"), writeFile("a.txt"), contains("a.txt", "pwned"), "allow-edits"),
  afterDeny("deny always for write_file a.txt denies edit_file a.txt", writeFile("a.txt"), editFile("a.txt", "alpha", "pwned"), contains("a.txt", "pwned"), "allow-edits"),
  afterDeny("deny always for edit_file a.txt denies a shell redirection into it", editFile("a.txt", "alpha", "ALPHA"), sh("echo pwned > a.txt"), contains("a.txt", "pwned"), "allow-all"),
  afterDeny("deny always for edit_file a.txt denies a shell >> into it", editFile("a.txt", "alpha", "ALPHA"), sh("echo pwned >> ./src/../a.txt"), contains("a.txt", "pwned"), "allow-all"),
  afterDeny(
    "deny always for edit_file a.txt denies write_file through a link to it",
    editFile("a.txt", "alpha", "ALPHA"),
    writeFile("src/alias.txt"),
    contains("a.txt", "pwned"),
    "allow-edits",
    (fx) => putLink(fx, "src/alias.txt", "../a.txt")
  ),
  afterDeny("deny always for read_file .env denies grep .env", readFile(".env"), grep(".env"), leaked, "allow-reads"),
  afterDeny("deny always for read_file .env denies a shell < from it", readFile(".env"), sh("cat < .env"), leaked, "allow-all"),
  // A deny about a command covers it anywhere in a line, as a deny rule would.
  afterDeny(
    "deny always for git push denies git status && git push",
    sh("git push origin HEAD:main"),
    sh("git status && git push origin HEAD:main"),
    created("{OUT}/remote.git/refs/heads/main"),
    "allow-all",
    gitRepo
  ),
  afterDeny("deny always for echo hi denies env echo hi", sh("echo hi"), sh(`env echo hi > /dev/null; touch ${PWNED}`), pwned, "allow-all"),
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
