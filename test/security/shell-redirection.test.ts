import { type Fixture, putLink } from "./fixture.js"
import { allowShell, created, denied, leaked, npmTest, PWNED, pwned, type SecurityCase, sh } from "./cases.js"
import { securityCases } from "./suite.js"

/**
 * A redirection's target is a path: an allowed command does not carry its redirections with
 * it. Writing to a file is covered only by a rule's `path` glob (a relative glob never
 * reaches outside the workspace); reading from a file outside the workspace is not allowed by
 * a command rule either.
 */
const redirect = (name: string, command: string, rules = [npmTest], harm = pwned, setup?: (fx: Fixture) => void): SecurityCase => ({
  name,
  rules,
  calls: [sh(command)],
  expect: denied(harm),
  ...(setup === undefined ? {} : { setup })
})

const catRule = [allowShell("cat")]

const cases: ReadonlyArray<SecurityCase> = [
  redirect("> to an absolute path outside", `npm test > ${PWNED}`),
  redirect(">> to an absolute path outside", `npm test >> ${PWNED}`),
  redirect("2> to an absolute path outside", `npm test 2> ${PWNED}`),
  redirect("&> to an absolute path outside", `npm test &> ${PWNED}`),
  redirect("&>> to an absolute path outside", `npm test &>> ${PWNED}`),
  redirect(">| (clobber) to an absolute path outside", `npm test >| ${PWNED}`),
  redirect(">& file to an absolute path outside", `npm test >& ${PWNED}`),
  redirect("1> with an explicit descriptor", `npm test 1>${PWNED}`),
  redirect("3> on another descriptor", `npm test 3> ${PWNED}`),
  redirect("2>&1 first, then > outside", `npm test 2>&1 > ${PWNED}`),
  redirect("the redirection written before the command", `> ${PWNED} npm test`),
  redirect("> with no space", `npm test >${PWNED}`),
  redirect("> to a relative ../ path", "npm test > ../outside/pwned"),
  redirect("> to a path that climbs out and back", `npm test > src/../../outside/pwned`),
  redirect("> to ~", "npm test > ~/pwned", [npmTest], created("{HOME}/pwned")),
  redirect("> to $HOME (an expansion: not static)", "npm test > $HOME/pwned", [npmTest], created("{HOME}/pwned")),
  redirect("> to a quoted outside path", `npm test > "{OUT}/pw"'ned'`),
  redirect("> through a symlinked directory in the workspace", "npm test > src/out/pwned", [npmTest], pwned, (fx) => putLink(fx, "src/out", "{OUT}")),
  redirect("> into a >() process substitution", `npm test > >(tee ${PWNED})`),
  redirect("exec > outside, then the allowed command", `exec > ${PWNED}; npm test`),
  redirect("a here-string redirected outside", `cat <<< hi > ${PWNED}`, catRule),
  redirect("> outside under a rule whose path is the relative glob **", `npm test > ${PWNED}`, [allowShell("npm test", "**")]),
  redirect("> into the workspace under a rule without a path", "echo hi > made.txt", [allowShell("echo *")], created("made.txt")),
  redirect("> into the workspace under a rule for another path", "echo hi > made.txt", [allowShell("echo *", "logs/**")], created("made.txt")),
  redirect("< from an outside file", "cat < {OUT}/secret.txt", catRule, leaked),
  redirect("0< from an outside file", "cat 0< {OUT}/secret.txt", catRule, leaked),
  redirect("< from a relative ../ file", "cat < ../outside/secret.txt", catRule, leaked),
  redirect("< from ~", "cat < ~/.bashrc", catRule, leaked),
  redirect("> on a ( ) subshell", `(npm test) > ${PWNED}`),
  redirect("> on a { } group", `{ npm test; } > ${PWNED}`),
  redirect("> on a for loop", `for i in 1; do npm test; done > ${PWNED}`),
  redirect("two redirections, only the first covered by the rule's path", `echo hi > out.txt > ${PWNED}`, [allowShell("echo *", "out.txt")]),
  redirect("a second command's redirection not covered by the rule's path", `echo hi > out.txt; echo hi > ${PWNED}`, [allowShell("echo *", "out.txt")]),
  redirect("> through a link, then .. (the kernel follows the link first)", "echo pwned > src/out/../outside/pwned", [allowShell("echo *", "**")], pwned, (fx) =>
    putLink(fx, "src/out", "../../outside")
  ),
  redirect("> after cd .. (the target is relative to the new directory)", "cd .. && echo pwned > outside/pwned", [allowShell("cd *"), allowShell("echo *", "**")]),
  redirect("< after cd ..", "cd .. && cat < outside/secret.txt", [allowShell("cd *"), allowShell("cat")], leaked),
  redirect("< after pushd ..", "pushd .. >/dev/null && cat < outside/secret.txt", [allowShell("pushd *"), allowShell("cat")], leaked),
  redirect("< after cd .. in a subshell", "(cd .. && cat < outside/secret.txt)", [allowShell("cd *"), allowShell("cat")], leaked),
  redirect("< after cd into a symlinked directory", "cd src/out && cat < secret.txt", [allowShell("cd *"), allowShell("cat")], leaked, (fx) => putLink(fx, "src/out", "../../outside")),
  redirect("> after cd into a symlinked directory", "cd src/out && echo pwned > pwned", [allowShell("cd *"), allowShell("echo *", "**")], pwned, (fx) => putLink(fx, "src/out", "../../outside")),
  redirect("< through a link, then ..", "cat < src/out/../outside/secret.txt", [allowShell("cat")], leaked, (fx) => putLink(fx, "src/out", "../../outside"))
]

securityCases("shell: redirections are paths", cases)
