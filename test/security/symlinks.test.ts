import { allowPath, allowShell, contains, created, denied, denyPath, editFile, leaked, readFile, type SecurityCase, sh, writeFile } from "./cases.js"
import { type Fixture, putLink } from "./fixture.js"
import { securityCases } from "./suite.js"

/**
 * Paths are judged where they really lead: symlinks followed, a new file by its nearest
 * existing parent. A relative `path` rule never reaches outside the workspace, and a deny rule
 * for a file holds for a link that points at it. Nothing from outside may show in the log
 * (a diff, a read, a listing).
 *
 * Links: `src/link -> outside/`, `src/abslink -> <absolute outside>`, `src/filelink ->
 * outside/target.txt`, `src/dangling -> outside/new.txt` (missing), `src/hop -> hop2`,
 * `src/hop2 -> outside/`, `src/up -> ..` (the fixture root), `src/envlink -> ../.env`,
 * `logs/current -> ../.env` (the only entry of `logs/`).
 */
const links = (fx: Fixture) => {
  putLink(fx, "src/link", "../../outside")
  putLink(fx, "src/abslink", "{OUT}")
  putLink(fx, "src/filelink", "../../outside/target.txt")
  putLink(fx, "src/dangling", "../../outside/new.txt")
  putLink(fx, "src/hop2", "../../outside")
  putLink(fx, "src/hop", "hop2")
  putLink(fx, "src/up", "../..")
  putLink(fx, "src/envlink", "../.env")
  putLink(fx, "logs/current", "../.env")
}

const writeSrc = [allowPath("write_file", "src/**")]
const editSrc = [allowPath("edit_file", "src/**")]
const readSrc = [allowPath("read_file", "src/**")]
/** `.env` is off limits to every tool; the rest of `src/` is open to writes and edits. */
const envDenied = [denyPath("*", ".env"), allowPath("write_file", "src/**"), allowPath("edit_file", "src/**"), allowPath("read_file", "src/**")]

const outsideTarget = contains("{OUT}/target.txt", "pwned")

const linkCase = (name: string, call: SecurityCase["calls"][number], rules: NonNullable<SecurityCase["rules"]>, harm = outsideTarget): SecurityCase => ({
  name,
  rules,
  setup: links,
  calls: [call],
  expect: denied(harm)
})

const cases: ReadonlyArray<SecurityCase> = [
  // Writes and edits through links out of the workspace, under rules for src/**.
  linkCase("write_file src/link/target.txt (a directory link out)", writeFile("src/link/target.txt"), writeSrc),
  linkCase("write_file src/abslink/target.txt (an absolute link out)", writeFile("src/abslink/target.txt"), writeSrc),
  linkCase("write_file src/link/new.txt (a new file behind a link out)", writeFile("src/link/new.txt"), writeSrc, created("{OUT}/new.txt")),
  linkCase("write_file src/link/deeper/new.txt (a new folder behind a link out)", writeFile("src/link/deeper/new.txt"), writeSrc, created("{OUT}/deeper/new.txt")),
  linkCase("write_file src/filelink (a file link out)", writeFile("src/filelink"), writeSrc),
  linkCase("write_file src/dangling (a dangling link out)", writeFile("src/dangling"), writeSrc, created("{OUT}/new.txt")),
  linkCase("write_file src/hop/target.txt (a chain of links out)", writeFile("src/hop/target.txt"), writeSrc),
  linkCase("write_file src/up/outside/target.txt (a link to the parent)", writeFile("src/up/outside/target.txt"), writeSrc),
  linkCase("write_file src/link/target.txt under an absolute rule for the workspace's src", writeFile("src/link/target.txt"), [
    allowPath("write_file", "{WS}/src/**")
  ]),
  { ...linkCase("write_file src/link/target.txt in accept-edits mode", writeFile("src/link/target.txt"), []), mode: "accept-edits" },
  linkCase("edit_file src/link/target.txt (the diff must not show outside content)", editFile("src/link/target.txt", "outside target", "pwned"), editSrc),
  linkCase("edit_file src/filelink", editFile("src/filelink", "outside target", "pwned"), editSrc),
  // Reads through links out of the workspace: reads inside are allowed by default, not these.
  linkCase("read_file src/link/secret.txt under a read_file src/** rule", readFile("src/link/secret.txt"), readSrc, leaked),
  linkCase("read_file src/filelink by default", readFile("src/filelink"), [], leaked),
  linkCase("grep through src/link by default", { tool: "grep", input: { pattern: "SECRET", path: "src/link" } }, [], leaked),
  linkCase("list_files of src/link by default", { tool: "list_files", input: { path: "src/link" } }, [], (fx, log) => log.includes("secret.txt") && log.includes(fx.outside)),
  // A deny rule for .env holds for src/envlink -> ../.env.
  linkCase("read_file src/envlink under deny .env", readFile("src/envlink"), envDenied, leaked),
  linkCase("write_file src/envlink under deny .env and allow src/**", writeFile("src/envlink"), envDenied, contains(".env", "pwned")),
  linkCase("edit_file src/envlink under deny .env and allow src/**", editFile("src/envlink", "TOKEN=", "pwned="), envDenied, contains(".env", "pwned")),
  linkCase("shell < src/envlink under deny .env and allow cat", sh("cat < src/envlink"), [denyPath("*", ".env"), allowShell("cat")], leaked),
  linkCase("shell > src/envlink under deny .env and allow echo into src/**", sh("echo pwned > src/envlink"), [denyPath("*", ".env"), allowShell("echo *", "src/**")], contains(".env", "pwned")),
  // `..` after a link: the kernel follows the link first, so `src/link/../ws/.env` is `.env`
  // (the file tools resolve such a path lexically, to `src/ws/.env`, and judge that same path).
  linkCase("shell > src/link/../ws/.env under deny .env and allow echo into **", sh("echo pwned > src/link/../ws/.env"), [denyPath("*", ".env"), allowShell("echo *", "**")], contains(".env", "pwned")),
  linkCase("shell < src/link/../ws/.env under deny .env and allow cat", sh("cat < src/link/../ws/.env"), [denyPath("*", ".env"), allowShell("cat")], leaked),
  linkCase("shell < src/link/../outside/secret.txt under cat", sh("cat < src/link/../outside/secret.txt"), [allowShell("cat")], leaked),
  linkCase(
    "shell > src/link/../ws/.custom-agent/permissions.json under echo into **",
    sh(`echo '{"rules":[]}  ' > src/link/../ws/.custom-agent/permissions.json`),
    [allowShell("echo *", "**")],
    contains(".custom-agent/permissions.json", "]}  ")
  ),
  linkCase("shell > .env after cd .. under deny .env, allow cd and echo into **", sh("cd .. && echo pwned > ws/.env"), [denyPath("*", ".env"), allowShell("cd *"), allowShell("echo *", "**")], contains(".env", "pwned")),
  linkCase("shell > a glob that expands to a link to .env, under deny .env and allow echo into logs/**", sh("echo pwned > logs/*"), [denyPath("*", ".env"), allowShell("echo *", "logs/**")], contains(".env", "pwned")),
  // Shell redirections through links out of the workspace.
  linkCase("shell > src/link/pwned under echo with path src/**", sh("echo pwned > src/link/pwned"), [allowShell("echo *", "src/**")], created("{OUT}/pwned")),
  linkCase("shell >> src/filelink under echo with path src/**", sh("echo pwned >> src/filelink"), [allowShell("echo *", "src/**")]),
  linkCase("shell < src/link/secret.txt under cat", sh("cat < src/link/secret.txt"), [allowShell("cat")], leaked)
]

securityCases("paths are resolved before any decision", cases)
