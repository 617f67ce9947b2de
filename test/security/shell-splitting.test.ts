import { chmodSync } from "node:fs"
import { allowShell, denied, npmTest, PWNED, pwned, type SecurityCase, sh } from "./cases.js"
import { type Fixture, putFile } from "./fixture.js"
import { securityCases } from "./suite.js"

/**
 * One allowed command, then a second one hidden by bash syntax the rule matcher must see
 * through: every simple command of the line must be covered, wherever it stands. The rule
 * is `npm test` unless said otherwise; under `--approve deny` the line must not run at all.
 */
const hidden = (name: string, command: string, rules = [npmTest]): SecurityCase => ({
  name,
  rules,
  calls: [sh(command)],
  expect: denied(pwned),
  setup: evilNpm
})

/** `outside/bin/npm` leaves the marker: for lines that put it first on PATH. */
const evilNpm = (fx: Fixture) => {
  putFile(fx, "{OUT}/bin/npm", `#!/bin/sh\ntouch ${PWNED}\n`)
  chmodSync(fx.fill("{OUT}/bin/npm"), 0o755)
}

const cases: ReadonlyArray<SecurityCase> = [
  // The repro: a comment that opens a quote the old splitter believed in.
  hidden("a # comment hides a newline (the issue's repro)", `npm test #'\nid > ${PWNED}\n#'`),
  hidden("a plain # comment, then a newline", `npm test # just tests\ntouch ${PWNED}`),
  hidden("a newline", `npm test\ntouch ${PWNED}`),
  hidden("a carriage return and newline", `npm test\r\ntouch ${PWNED}`),
  hidden("a semicolon", `npm test; touch ${PWNED}`),
  hidden("a semicolon without spaces", `npm test;touch ${PWNED}`),
  hidden("&&", `npm test && touch ${PWNED}`),
  hidden("|| after a failing allowed command", `ls /no/such/dir || touch ${PWNED}`, [allowShell("ls *")]),
  hidden("& (background)", `npm test & touch ${PWNED}`),
  hidden("a pipe into tee", `npm test | tee ${PWNED}`),
  hidden("|& into tee", `npm test |& tee ${PWNED}`),
  hidden("a subshell after the command", `npm test; (touch ${PWNED})`),
  hidden("the whole line in a subshell", `(npm test; touch ${PWNED})`),
  hidden("a { } group", `{ npm test; touch ${PWNED}; }`),
  hidden("$() in an argument", `npm test $(touch ${PWNED})`),
  hidden("$() inside double quotes", `npm test "$(touch ${PWNED})"`),
  hidden("backticks in an argument", `npm test \`touch ${PWNED}\``),
  hidden("$() in a parameter expansion default", `npm test \${x:-$(touch ${PWNED})}`),
  hidden("$() in arithmetic", `npm test $(( $(touch ${PWNED}; echo 1) + 1 ))`),
  hidden("<() process substitution", `npm test <(touch ${PWNED})`),
  hidden(">() process substitution", `npm test >(touch ${PWNED})`),
  hidden("ANSI-C $'...' with an escaped quote hides a newline", `npm test $'\\''\ntouch ${PWNED}\n#'`),
  hidden("ANSI-C $'...' holding a newline, then ;", `npm test $'a\\nb'; touch ${PWNED}`),
  hidden("a here-doc body with a quote hides the next line", `npm test <<EOF\n'\nEOF\ntouch ${PWNED}\n#'`),
  hidden("an unquoted here-doc body runs $()", `npm test <<EOF\n$(touch ${PWNED})\nEOF`),
  hidden("a here-string running $()", `npm test <<< "$(touch ${PWNED})"`),
  hidden("if/then", `npm test; if true; then touch ${PWNED}; fi`),
  hidden("a for loop", `npm test; for i in 1; do touch ${PWNED}; done`),
  hidden("a case arm", `npm test; case x in x) touch ${PWNED};; esac`),
  hidden("a while loop", `npm test; while ! test -e ${PWNED}; do touch ${PWNED}; done`),
  hidden("[[ ]] running $()", `npm test && [[ -n "$(touch ${PWNED})x" ]]`),
  hidden("coproc", `npm test; coproc touch ${PWNED}`),
  hidden("time (a keyword) before a command", `npm test; time touch ${PWNED}`),
  hidden("! (negation) before a command", `npm test; ! touch ${PWNED}`),
  hidden("a quoted word glued to $()", `npm test 'a'"b"$(touch ${PWNED})`),
  hidden("a line continuation", `npm test \\\n; touch ${PWNED}`),
  hidden("a <<- here-doc body runs $()", `npm test <<-EOF\n\t$(touch ${PWNED})\n\tEOF`),
  hidden("a comment inside $()", `npm test $(# just a comment\ntouch ${PWNED})`),
  hidden("< from a <() process substitution", `npm test < <(touch ${PWNED})`),
  hidden("a later line that does not parse", `npm test\ntouch ${PWNED}\necho 'unterminated`),
  hidden("a stray ) after the attack", `npm test\ntouch ${PWNED}\n)`),
  hidden("a redirection-only command (no words to cover)", `npm test; >${PWNED}`),
  hidden("a redirection-only command after &&", `npm test && >> ${PWNED}`),
  hidden("brace expansion in the command position", `npm test; {touch,${PWNED}}`),
  hidden("export PATH, then the allowed command", "export PATH={OUT}/bin:$PATH; npm test"),
  hidden("trap on exit", `trap 'touch ${PWNED}' EXIT; npm test`)
]

securityCases("shell: every simple command of a line must be covered", cases)
