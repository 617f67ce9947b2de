import { allowShell, created, denied, deniedByRule, denyShell, removed, type SecurityCase, sh } from "./cases.js"
import { gitRepo } from "./fixture.js"
import { securityCases } from "./suite.js"

/**
 * A deny rule holds wherever the command stands and however it is dressed: wrappers, a
 * directory, quoting, global options, lists, a static `bash -c`. Questions are answered
 * "allow" here (`--approve allow-all`), so the deny rule is all that stands in the way, and
 * the decision must name it.
 */
const VICTIM = "victim.txt"
const gone = removed(VICTIM)

const rm = (name: string, command: string): SecurityCase => ({
  name: `deny rm: ${name}`,
  rules: [denyShell("rm")],
  approve: "allow-all",
  calls: [sh(command)],
  expect: deniedByRule(gone)
})

/** `touch NAME` creates a file in the workspace: the harm its control proves. */
const touch = (name: string, command: string, file: string): SecurityCase => ({
  name: `deny touch: ${name}`,
  rules: [denyShell("touch")],
  approve: "allow-all",
  calls: [sh(command)],
  expect: deniedByRule(created(file))
})

/** A wrapper this machine may not have: the rule must match before anything runs, so no control. */
const touchUnchecked = (name: string, command: string): SecurityCase => ({
  name: `deny touch: ${name} (the wrapper need not exist: the rule must match first)`,
  rules: [denyShell("touch")],
  approve: "allow-all",
  calls: [sh(command)],
  expect: { kind: "denied", by: ["rule"], control: false }
})

const PUSH = "origin HEAD:main"
const pushed = created("{OUT}/remote.git/refs/heads/main")

const push = (name: string, command: string, rules = [denyShell("git push")], harm = pushed): SecurityCase => ({
  name: `deny git push: ${name}`,
  rules,
  approve: "allow-all",
  setup: gitRepo,
  calls: [sh(command)],
  expect: deniedByRule(harm)
})

const cases: ReadonlyArray<SecurityCase> = [
  rm("plain", `rm ${VICTIM}`),
  rm("with flags", `rm -f ${VICTIM}`),
  rm("/bin/rm", `/bin/rm ${VICTIM}`),
  rm("/usr/bin/rm", `/usr/bin/rm ${VICTIM}`),
  rm("single-quoted command", `'rm' ${VICTIM}`),
  rm("double-quoted command", `"rm" ${VICTIM}`),
  rm("a backslash in the command", `r\\m ${VICTIM}`),
  rm("an empty quote inside the command", `r''m ${VICTIM}`),
  rm("command rm", `command rm ${VICTIM}`),
  rm("env rm", `env rm ${VICTIM}`),
  rm("env -i with an assignment", `env -i A=1 rm ${VICTIM}`),
  rm("exec rm", `exec rm ${VICTIM}`),
  rm("nohup rm", `nohup rm ${VICTIM}`),
  rm("timeout 5 rm", `timeout 5 rm ${VICTIM}`),
  rm("nice rm", `nice rm ${VICTIM}`),
  rm("xargs rm", `echo ${VICTIM} | xargs rm`),
  rm("xargs -I{} rm {}", `echo ${VICTIM} | xargs -I{} rm {}`),
  rm("an assignment in front", `LC_ALL=C rm ${VICTIM}`),
  rm("after ;", `true; rm ${VICTIM}`),
  rm("after &&", `true && rm ${VICTIM}`),
  rm("after ||", `false || rm ${VICTIM}`),
  rm("at the end of a pipe", `echo y | rm ${VICTIM}`),
  rm("on the next line", `true\nrm ${VICTIM}`),
  rm("after a # comment hiding a newline", `true #'\nrm ${VICTIM}\n#'`),
  rm("in a subshell", `(rm ${VICTIM})`),
  rm("in a { } group", `{ rm ${VICTIM}; }`),
  rm("in $()", `echo $(rm ${VICTIM})`),
  rm("in backticks", `echo \`rm ${VICTIM}\``),
  rm("in an if", `if true; then rm ${VICTIM}; fi`),
  rm("bash -c 'rm ...'", `bash -c 'rm ${VICTIM}'`),
  rm("sh -c \"rm ...\"", `sh -c "rm ${VICTIM}"`),
  rm("bash -c with rm second", `bash -c "true; rm ${VICTIM}"`),
  rm("time rm", `time rm ${VICTIM}`),
  rm("\\rm (the alias dodge)", `\\rm ${VICTIM}`),
  rm("timeout with options", `timeout -s KILL 5 rm ${VICTIM}`),
  rm("nice -n 5 rm", `nice -n 5 rm ${VICTIM}`),
  rm("env -u HOME rm", `env -u HOME rm ${VICTIM}`),
  rm("command -p rm", `command -p rm ${VICTIM}`),
  rm("exec -a name rm", `exec -a name rm ${VICTIM}`),
  rm("stdbuf -oL rm", `stdbuf -oL rm ${VICTIM}`),
  rm("setsid rm", `setsid -w rm ${VICTIM}`),
  rm("xargs sh -c 'rm ...'", `echo | xargs sh -c 'rm ${VICTIM}'`),
  rm("in an assignment's $()", `x=$(rm ${VICTIM})`),
  rm("in an unquoted here-doc body", `cat <<EOF\n$(rm ${VICTIM})\nEOF`),
  rm("in a <() process substitution", `cat <(rm ${VICTIM})`),
  rm("in [[ ]]", `[[ -n "$(rm ${VICTIM})x" ]]`),
  rm("in a function body", `f() { rm ${VICTIM}; }; f`),
  rm("an ANSI-C quoted command", `$'rm' ${VICTIM}`),
  rm("env -S 'rm ...'", `env -S 'rm ${VICTIM}'`),
  rm("env --split-string=...", `env --split-string='rm ${VICTIM}'`),
  rm("stacked wrappers", `nohup nice -n 1 timeout 5 rm ${VICTIM}`),
  rm("builtin command rm", `builtin command rm ${VICTIM}`),
  rm("xargs -0 rm", `printf '${VICTIM}\\0' | xargs -0 rm`),
  rm("flock file rm", `flock /tmp/ca-security-lock rm ${VICTIM}`),
  rm("su -c 'rm ...'", `su -c 'rm ${VICTIM}'`),
  rm("find -exec rm", `find . -name ${VICTIM} -exec rm {} \\;`),
  {
    name: "deny rm: sudo -u root rm (sudo need not exist: the rule must match first)",
    rules: [denyShell("rm")],
    approve: "allow-all",
    calls: [sh(`sudo -u root rm ${VICTIM}`)],
    expect: { kind: "denied", by: ["rule"], control: false }
  },
  {
    name: "deny rm: sudo rm (sudo need not exist: the rule must match first)",
    rules: [denyShell("rm")],
    approve: "allow-all",
    calls: [sh(`sudo rm ${VICTIM}`)],
    expect: { kind: "denied", by: ["rule"], control: false }
  },
  push("plain", `git push ${PUSH}`),
  push("git -C . push", `git -C . push ${PUSH}`),
  push("git -C with a quoted directory", `git -C "." push ${PUSH}`),
  push("git --no-pager push", `git --no-pager push ${PUSH}`),
  push("git -c k=v push", `git -c core.pager=cat push ${PUSH}`),
  push("git --git-dir=.git push", `git --git-dir=.git push ${PUSH}`),
  push("git --work-tree . push", `git --work-tree . push ${PUSH}`),
  push("/usr/bin/git push", `/usr/bin/git push ${PUSH}`),
  push("command git push", `command git push ${PUSH}`),
  push("env GIT_TRACE=0 git push", `env GIT_TRACE=0 git push ${PUSH}`),
  push("an assignment in front", `GIT_DIR=.git git push ${PUSH}`),
  push("after git status &&", `git status && git push ${PUSH}`),
  push("bash -c 'git push'", `bash -c 'git push ${PUSH}'`),
  push("git -P push (short --no-pager)", `git -P push ${PUSH}`),
  push("git --namespace=x push", `git --namespace=x push ${PUSH}`, undefined, created("{OUT}/remote.git/refs/namespaces/x/refs/heads/main")),
  push("a quoted subcommand", `git 'push' ${PUSH}`),
  push("a backslash in the subcommand", `git pu\\sh ${PUSH}`),
  push("git -c alias.p=push p (an alias defined on the line)", `git -c alias.p=push p ${PUSH}`),
  push("git -C \"$PWD\" push (a dynamic option value, a static subcommand)", `git -C "$PWD" push ${PUSH}`),
  // Brace expansion: bash runs `{touch,P7}` as `touch P7`.
  touch("{touch,P7}", "{touch,P7}", "P7"),
  touch("t{o,}uch P24", "t{o,}uch P24", "P24"),
  touch("a nested brace list", "{{touch,x},y} P25", "P25"),
  touch("a letter sequence", "touc{h..i} P26", "P26"),
  touch("a brace list after a wrapper", "env {touch,P27}", "P27"),
  touch("a brace list after an escaped comma", "{touch,P28\\,x}", "P28,x"),
  push("{git,push,origin,HEAD:b3}", "{git,push,origin,HEAD:b3}", undefined, created("{OUT}/remote.git/refs/heads/b3")),
  push("git {push,origin,HEAD:b2}", "git {push,origin,HEAD:b2}", undefined, created("{OUT}/remote.git/refs/heads/b2")),
  push("git {push,origin} HEAD:b4", "git {push,origin} HEAD:b4", undefined, created("{OUT}/remote.git/refs/heads/b4")),
  // Wrappers that run their arguments, and programs that run a string as shell code.
  touch("setpriv touch", "setpriv touch P1", "P1"),
  touch("setpriv --reuid 0 touch", "setpriv --reuid 0 touch P11", "P11"),
  touch("prlimit touch", "prlimit touch P2", "P2"),
  touch("prlimit -n1024 touch", "prlimit -n1024 touch P12", "P12"),
  touch("prlimit --nofile=1024 touch", "prlimit --nofile=1024 touch P13", "P13"),
  touch("script -qc 'touch ...'", "script -qc 'touch P3' /dev/null", "P3"),
  touch("script -c'touch ...' (the code attached)", "script -c'touch P14' /dev/null", "P14"),
  touch("script with -c after the file", "script -q /dev/null -c 'touch P15'", "P15"),
  touch("sg root -c 'touch ...'", "sg root -c 'touch P4'", "P4"),
  touch("sg root 'touch ...' (without -c)", "sg root 'touch P16'", "P16"),
  touch("sg - root -c 'touch ...'", "sg - root -c 'touch P17'", "P17"),
  touch("su -c'touch ...' (the code attached)", "su -c'touch P18'", "P18"),
  touch("nsenter -- touch", "nsenter -- touch P6", "P6"),
  touch("runuser -u root -- touch", "runuser -u root -- touch P5", "P5"),
  touch("runuser -u root touch", "runuser -u root touch P19", "P19"),
  touch("setarch x86_64 touch", "setarch x86_64 touch P20", "P20"),
  touch("setarch -R touch", "setarch -R touch P21", "P21"),
  touch("chrt -o 0 touch", "chrt -o 0 touch P22", "P22"),
  touch("ionice -c3 touch", "ionice -c3 touch P23", "P23"),
  touch("bwrap --bind / / touch", "bwrap --bind / / touch P29", "P29"),
  touch("valgrind -q touch", "valgrind -q touch P30", "P30"),
  touchUnchecked("cgexec -g cpu:x touch", "cgexec -g cpu:x touch P31"),
  touchUnchecked("systemd-run --user --scope touch", "systemd-run --user --scope touch P32"),
  touchUnchecked("proot -0 touch", "proot -0 touch P33"),
  touchUnchecked("pkexec touch", "pkexec touch P34"),
  touchUnchecked("pkexec --user root touch", "pkexec --user root touch P35"),
  touchUnchecked("firejail --quiet touch", "firejail --quiet touch P36"),
  touchUnchecked("unbuffer touch", "unbuffer touch P37"),
  touchUnchecked("catchsegv touch", "catchsegv touch P38"),
  touchUnchecked("faketime '2020-01-01' touch", "faketime '2020-01-01' touch P39"),
  touchUnchecked("torsocks touch", "torsocks touch P40"),
  touchUnchecked("sudo -u root touch", "sudo -u root touch P41"),
  touchUnchecked("eatmydata touch", "eatmydata touch P42"),
  touchUnchecked("numactl --interleave=all touch", "numactl --interleave=all touch P43"),
  touchUnchecked("gosu root touch", "gosu root touch P44"),
  touchUnchecked("su-exec root touch", "su-exec root touch P45"),
  touchUnchecked("run0 touch", "run0 touch P46"),
  touchUnchecked("xvfb-run -a touch", "xvfb-run -a touch P47"),
  touchUnchecked("cpulimit -l 50 -- touch", "cpulimit -l 50 -- touch P48"),
  touchUnchecked("trickle -d 10 touch", "trickle -d 10 touch P49"),
  touchUnchecked("nocache touch", "nocache touch P50"),
  touchUnchecked("chpst -u root touch", "chpst -u root touch P51"),
  // npm's global options (`npm --prefix dir`).
  {
    name: "deny npm install: npm --prefix . install",
    rules: [denyShell("npm install")],
    approve: "allow-all",
    calls: [sh("npm --prefix . install --offline")],
    expect: deniedByRule(created("package-lock.json"))
  },
  {
    name: "deny npm install: npm --loglevel silent install",
    rules: [denyShell("npm install")],
    approve: "allow-all",
    calls: [sh("npm --loglevel silent install --offline")],
    expect: deniedByRule(created("package-lock.json"))
  },
  // Precedence: deny beats allow whatever the order of the rules.
  push("an allow rule for git * listed first", `git push ${PUSH}`, [allowShell("git *"), denyShell("git push")]),
  push("an allow rule for git push listed first", `git push ${PUSH}`, [allowShell("git push *"), denyShell("git push")]),
  {
    name: "deny rm: an ask rule listed first does not outrank the deny rule",
    rules: [{ tool: "shell", command: "rm", decision: "ask" }, denyShell("rm")],
    approve: "allow-all",
    calls: [sh(`rm ${VICTIM}`)],
    expect: deniedByRule(gone)
  },
  // Lines whose command cannot be known statically: no deny rule can see them, so they ask
  // (here: the policy denies) and never slip through an allow rule.
  {
    name: "deny rm: rm from an expansion asks",
    rules: [denyShell("rm"), allowShell("echo *")],
    calls: [sh(`$(echo rm) ${VICTIM}`)],
    expect: denied(gone)
  },
  {
    name: "deny rm: eval rm asks",
    rules: [denyShell("rm"), allowShell("eval *")],
    calls: [sh(`eval rm ${VICTIM}`)],
    expect: denied(gone)
  },
  {
    name: "deny rm: find -exec rm under a rule for find . asks",
    rules: [denyShell("rm"), allowShell("find .")],
    calls: [sh(`find . -name ${VICTIM} -exec rm {} \\;`)],
    expect: denied(gone)
  }
]

securityCases("deny rules cannot be dodged", cases)
