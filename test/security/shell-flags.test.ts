import { chmodSync } from "node:fs"
import { allowShell, deniedNoControl, denied, npmTest, PWNED, pwned, type SecurityCase, sh } from "./cases.js"
import { type Fixture, gitRepo, putFile } from "./fixture.js"
import { securityCases } from "./suite.js"

/** `outside/evil`: a package whose test script leaves the marker. */
const evilPackage = (fx: Fixture) =>
  putFile(fx, "{OUT}/evil/package.json", JSON.stringify({ name: "evil", private: true, scripts: { test: `touch ${PWNED}` } }))

/** An executable script at `path` that leaves the marker. */
const evilScript = (path: string) => (fx: Fixture) => {
  putFile(fx, path, `#!/bin/sh\ntouch ${PWNED}\n`)
  chmodSync(fx.fill(path), 0o755)
}

/** `outside/evil.js`: leaves the marker when node loads it. */
const evilModule = (fx: Fixture) => putFile(fx, "{OUT}/evil.js", `require("node:fs").writeFileSync(${JSON.stringify(fx.fill(PWNED))}, "")\n`)

const attack = (name: string, command: string, options: { rules?: SecurityCase["rules"]; setup?: (fx: Fixture) => void } = {}): SecurityCase => ({
  name,
  rules: options.rules ?? [npmTest],
  calls: [sh(command)],
  expect: denied(pwned),
  ...(options.setup === undefined ? {} : { setup: options.setup })
})

/** Not harmful in itself, but not what the rule names: it must ask (and so, here, be denied). */
const uncovered = (name: string, command: string, rules = [npmTest]): SecurityCase => ({
  name,
  rules,
  calls: [sh(command)],
  expect: deniedNoControl()
})

const cases: ReadonlyArray<SecurityCase> = [
  // Extra arguments: `npm test` is exactly `npm test`.
  attack("npm test --prefix elsewhere runs another package's script", "npm test --prefix {OUT}/evil", { setup: evilPackage }),
  attack("npm --prefix elsewhere test (option before the subcommand)", "npm --prefix {OUT}/evil test", { setup: evilPackage }),
  attack("npm test --script-shell runs any program", "npm test --script-shell={OUT}/evil.sh", { setup: evilScript("{OUT}/evil.sh") }),
  attack("npm test --userconfig with a hostile script-shell", "npm test --userconfig {OUT}/npmrc", {
    setup: (fx) => {
      evilScript("{OUT}/evil.sh")(fx)
      putFile(fx, "{OUT}/npmrc", "script-shell={OUT}/evil.sh\n")
    }
  }),
  attack("npm test -- ; a second command", `npm test -- ; touch ${PWNED}`),
  uncovered("npm test -- --watch under the exact rule npm test", "npm test -- --watch"),
  uncovered("npm tests is not npm test", "npm tests"),
  uncovered("npm test:unit is not npm test", "npm test:unit"),
  attack("npm test * does not stretch over ;", `npm test --silent; touch ${PWNED}`, { rules: [allowShell("npm test *")] }),
  attack("npm test:* does not stretch over &&", `npm test && touch ${PWNED}`, { rules: [allowShell("npm test:*")] }),
  attack("npm test * does not cover a redirection outside", `npm test --silent > ${PWNED}`, { rules: [allowShell("npm test *")] }),
  attack("npm test * does not cover $() in its arguments", `npm test $(touch ${PWNED})`, { rules: [allowShell("npm test *")] }),
  // Assignments in front of the allowed command.
  attack("PATH=... npm test runs another npm", "PATH={OUT}/bin:$PATH npm test", { setup: evilScript("{OUT}/bin/npm") }),
  attack("env PATH=... npm test runs another npm", "env PATH={OUT}/bin:/usr/bin:/bin npm test", { setup: evilScript("{OUT}/bin/npm") }),
  attack("FOO=$(...) npm test runs the substitution", `FOO=$(touch ${PWNED}) npm test`),
  attack("NODE_OPTIONS=--require loads a module into npm", "NODE_OPTIONS='--require {OUT}/evil.js' npm test", { setup: evilModule }),
  attack("npm_config_script_shell=... npm test", "npm_config_script_shell={OUT}/evil.sh npm test", { setup: evilScript("{OUT}/evil.sh") }),
  attack("a bare assignment line, then the command", `x=$(touch ${PWNED}); npm test`),
  // Functions and aliases shadowing the allowed command.
  attack("a function named npm", `npm() { touch ${PWNED}; }; npm test`),
  attack("function npm { }", `function npm { touch ${PWNED}; }\nnpm test`),
  attack("an alias for npm", `shopt -s expand_aliases\nalias npm='touch ${PWNED} #'\nnpm test`),
  attack("hash -p pointing npm elsewhere", "hash -p {OUT}/evil.sh npm; npm test", { setup: evilScript("{OUT}/evil.sh") }),
  attack("command_not_found_handle runs for an unknown command", `command_not_found_handle() { touch ${PWNED}; }; no-such-command`),
  // Commands that run other commands.
  attack("eval", `eval 'touch ${PWNED}'`),
  attack("eval after the allowed command", `npm test && eval "touch ${PWNED}"`),
  attack("eval under a rule that names eval", `eval 'touch ${PWNED}'`, { rules: [allowShell("eval *")] }),
  attack("source", "npm test; source {OUT}/evil.sh", { setup: evilScript("{OUT}/evil.sh") }),
  attack(". (dot)", ". {OUT}/evil.sh && npm test", { setup: evilScript("{OUT}/evil.sh") }),
  attack("source under a rule that names source", "source {OUT}/evil.sh", { rules: [allowShell("source *")], setup: evilScript("{OUT}/evil.sh") }),
  attack("bash -c", `bash -c 'npm test; touch ${PWNED}'`),
  attack("sh -c", `sh -c "touch ${PWNED}"`),
  attack("bash -c under a rule that names bash -c", `bash -c 'touch ${PWNED}'`, { rules: [allowShell("bash -c *")] }),
  attack("bash reading a script from stdin", `echo 'touch ${PWNED}' | bash`, { rules: [allowShell("echo *")] }),
  attack("exec", `exec touch ${PWNED}`),
  attack("xargs", `echo ${PWNED} | xargs touch`, { rules: [allowShell("echo *")] }),
  attack("env", `env touch ${PWNED}`),
  attack("nohup", `nohup touch ${PWNED}`),
  attack("timeout", `timeout 5 touch ${PWNED}`),
  attack("find -exec under a rule for find . only", `find . -maxdepth 0 -exec touch ${PWNED} \\;`, { rules: [allowShell("find .")] }),
  attack("git -c core.fsmonitor under git status", `git -c core.fsmonitor='touch ${PWNED}' status`, { rules: [allowShell("git status *")], setup: gitRepo }),
  attack("an expansion in the command position", `$(echo touch) ${PWNED}`),
  attack("a variable in the command position", `c=touch; $c ${PWNED}`),
  // `touch *` covers `touch <anything>`, but these command words are not static: they must ask.
  attack("a quoted expansion in the command position", `"\${X:-touch}" ${PWNED}`, { rules: [allowShell("touch *")] }),
  attack("a glob in the command position", `/usr/bin/tou[c]h ${PWNED}`, { rules: [allowShell("touch *")] })
]

securityCases("shell: arguments, assignments and commands that run commands", cases)
