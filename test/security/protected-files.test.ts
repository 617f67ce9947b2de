import { allowPath, allowShell, contains, created, denied, editFile, leaked, readFile, type SecurityCase, sh, writeFile } from "./cases.js"
import { securityCases } from "./suite.js"

/**
 * Protected paths always ask, in every mode but `bypass`, whatever the rules say: the
 * workspace's `.custom-agent/` and `.git/`, the user's configuration directory and the data
 * directory. Under `--approve deny` a question is a refusal, so every case here must be
 * refused, though a rule (relative `**` and absolute `/**`) or the mode would allow the call.
 */
interface Target {
  readonly label: string
  readonly path: string
  /** For an existing file: a piece of it an edit can replace. */
  readonly edit?: { readonly old: string; readonly new: string }
}

const targets: ReadonlyArray<Target> = [
  {
    label: "the project rules file",
    path: ".custom-agent/permissions.json",
    edit: { old: '"rules":[]', new: '"rules":[{"tool":"pwned","decision":"allow"}]' }
  },
  { label: "a new file in .custom-agent/", path: ".custom-agent/settings.json" },
  { label: ".git/config", path: ".git/config", edit: { old: "[core]", new: "[core]\n\tfsmonitor = touch pwned" } },
  { label: "a new hook in .git/hooks", path: ".git/hooks/pre-commit" },
  {
    label: "the user's rules file (config dir)",
    path: "{CONFIG}/permissions.json",
    edit: { old: '{"rules":[', new: '{"rules":[{"tool":"pwned","decision":"allow"},' }
  },
  { label: "a file in the data dir", path: "{DATA}/approvals.json" }
]

const everywhere = (tool: string) => [allowPath(tool, "**"), allowPath(tool, "/**")]
const marked = (target: Target) => contains(target.path, "pwned")

const cases: ReadonlyArray<SecurityCase> = targets.flatMap((target): ReadonlyArray<SecurityCase> => [
  {
    name: `write_file ${target.label} under write_file rules ** and /**`,
    rules: everywhere("write_file"),
    calls: [writeFile(target.path)],
    expect: denied(marked(target))
  },
  {
    name: `write_file ${target.label} in accept-edits mode`,
    mode: "accept-edits",
    calls: [writeFile(target.path)],
    expect: denied(marked(target))
  },
  {
    name: `shell >> ${target.label} under echo rules with paths ** and /**`,
    rules: [allowShell("echo *", "**"), allowShell("echo *", "/**")],
    calls: [sh(`echo pwned >> ${target.path}`)],
    expect: denied(marked(target))
  },
  {
    name: `write_file ${target.label} under --approve allow-edits (a headless policy answers only ordinary calls)`,
    approve: "allow-edits",
    calls: [writeFile(target.path)],
    expect: denied(marked(target), ["policy"])
  },
  ...(target.edit === undefined
    ? []
    : [
        {
          name: `edit_file ${target.label} under edit_file rules ** and /**`,
          rules: everywhere("edit_file"),
          calls: [editFile(target.path, target.edit.old, target.edit.new)],
          expect: denied(marked(target))
        },
        {
          name: `edit_file ${target.label} in accept-edits mode`,
          mode: "accept-edits" as const,
          calls: [editFile(target.path, target.edit.old, target.edit.new)],
          expect: denied(marked(target))
        }
      ])
])

securityCases("protected files always ask", cases)

/** Issue 30's attacker pass: `--approve allow-edits` and `allow-reads` stay inside the workspace. */
securityCases("a headless policy short of allow-all answers only calls inside the workspace", [
  { name: "allow-edits: write_file outside the workspace", approve: "allow-edits", calls: [writeFile("{OUT}/pwned.txt")], expect: denied(created("{OUT}/pwned.txt"), ["policy"]) },
  { name: "allow-edits: write_file into ~", approve: "allow-edits", calls: [writeFile("{HOME}/.bashrc")], expect: denied(contains("{HOME}/.bashrc", "pwned"), ["policy"]) },
  { name: "allow-reads: read_file outside the workspace", approve: "allow-reads", calls: [readFile("{OUT}/secret.txt")], expect: denied(leaked, ["policy"]) }
])
