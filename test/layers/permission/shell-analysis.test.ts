import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { ShellAnalysis } from "../../../src/domain/shell.js"
import { analyzeShell, analyzeShellWith } from "../../../src/layers/permission/shell-analysis.js"
import { makeParserLoader } from "../../../src/layers/permission/shell-parser.js"
import { decodeAnsiC } from "../../../src/layers/permission/shell-word-value.js"

const root = "/work/ws"
const home = "/home/u"
const analyze = (line: string, cwd = root) => analyzeShell(line, cwd, { home })

/** Each simple command as its argv, or its words with `?` marking those only known at run time. */
const shape = (analysis: ShellAnalysis) => analysis.commands.map((c) => c.argv ?? c.words.map((w) => w.value ?? `?${w.text}`))

const resolved = (analysis: ShellAnalysis) => analysis.unresolved.length === 0

describe("analyzeShell: simple commands wherever they stand", () => {
  it.effect("the issue's comment trick is two commands, the second writing outside", () =>
    Effect.gen(function* () {
      const a = yield* analyze("npm test #'\nid > /some/outside/file\n#'")
      expect(shape(a)).toEqual([["npm", "test"], ["id"]])
      expect(a.commands[1]?.redirects).toEqual([{ kind: "write", text: "> /some/outside/file", target: "/some/outside/file", real: "/some/outside/file" }])
      expect(resolved(a)).toBe(true)
    }))

  it.effect("lists, pipelines, negation, background, subshells and groups", () =>
    Effect.gen(function* () {
      const a = yield* analyze("a; b && c || d & e | f |& g\n! h; (i; j) && { k; }")
      expect(shape(a)).toEqual([["a"], ["b"], ["c"], ["d"], ["e"], ["f"], ["g"], ["h"], ["i"], ["j"], ["k"]])
      expect(resolved(a)).toBe(true)
    }))

  it.effect("conditions and bodies of if, while, until, for, select, case and c-style for", () =>
    Effect.gen(function* () {
      const a = yield* analyze(
        "if a; then b; elif c; then d; else e; fi; while f; do g; done; until h; do i; done; for x in $(j) y; do k; done; " +
          "select s in p q; do l; done; case $v in m) n;; *) o;; esac; for ((i=0; i<$(p); i++)); do q; done"
      )
      expect(shape(a)).toEqual([["a"], ["b"], ["c"], ["d"], ["e"], ["f"], ["g"], ["h"], ["i"], ["j"], ["k"], ["l"], ["n"], ["o"], ["p"], ["q"]])
      expect(resolved(a)).toBe(true)
    }))

  it.effect("command and process substitutions, in arguments, strings, assignments and redirection targets", () =>
    Effect.gen(function* () {
      const a = yield* analyze('echo `a` "x$(b)y" <(c) >(d) X=$(e) ${v:-$(f)} > "$(g)"')
      const echo = a.commands.find((c) => c.words[0]?.value === "echo")
      expect(echo?.argv).toBeUndefined()
      expect(shape(a).filter((c) => c[0] !== "echo").sort()).toEqual([["a"], ["b"], ["c"], ["d"], ["e"], ["f"], ["g"]])
      expect(a.unresolved.join("\n")).toContain("only known at run time")
    }))

  it.effect("each substitution is one command, wherever the grammar hangs the word that holds it", () =>
    Effect.gen(function* () {
      const a = yield* analyze("npm test > /dev/null $(a) && cat <<EOF $(b)\nx\nEOF\ncat <<< $(c) $(d); > f $(e) push")
      expect(shape(a).filter((c) => c.length === 1 && c[0] !== "cat").sort()).toEqual([["a"], ["b"], ["c"], ["d"], ["e"]])
      expect(a.commands.at(-1)?.words.map((w) => w.text)).toEqual(["$(e)", "push"])
    }))

  it.effect("nested substitutions", () =>
    Effect.gen(function* () {
      const a = yield* analyze('echo "$(echo "$(id)" `whoami`)"')
      expect(shape(a).map((c) => c[0])).toEqual(["id", "whoami", "echo", "echo"])
    }))

  it.effect("here-documents: an unquoted body's substitutions run, a quoted one's do not", () =>
    Effect.gen(function* () {
      const unquoted = yield* analyze("cat <<EOF > out\nhello $(id) ${x:-$(uname)}\nEOF\necho done")
      expect(shape(unquoted)).toEqual([["id"], ["uname"], ["cat"], ["echo", "done"]])
      expect(unquoted.commands[2]?.redirects.map((r) => r.kind)).toEqual(["input", "write"])
      for (const delimiter of ["'EOF'", '"EOF"', "\\EOF"]) {
        const quoted = yield* analyze(`cat <<${delimiter}\n$(id) \`id\`\nEOF`)
        expect(shape(quoted)).toEqual([["cat"]])
        expect(resolved(quoted)).toBe(true)
      }
    }))

  it.effect("backquotes in an unquoted here-document body, which the grammar leaves unparsed, make the line unresolved", () =>
    Effect.gen(function* () {
      const a = yield* analyze("cat <<EOF\n`id`\nEOF")
      expect(a.unresolved.join("\n")).toContain("here-document")
    }))

  it.effect("a here-document followed by a pipeline on the same line", () =>
    Effect.gen(function* () {
      const a = yield* analyze("cat <<EOF | grep x && rm -rf y > out\nbody\nEOF")
      expect(shape(a)).toEqual([["grep", "x"], ["rm", "-rf", "y"], ["cat"]])
      expect(a.commands[1]?.redirects.map((r) => r.target)).toEqual([`${root}/out`])
    }))

  it.effect("here-strings are input; their substitutions run", () =>
    Effect.gen(function* () {
      const a = yield* analyze('cat <<< "hi $(id)" extra')
      expect(shape(a)).toEqual([["id"], ["cat", "extra"]])
      expect(a.commands[1]?.redirects).toEqual([{ kind: "input", text: '<<< "hi $(id)"' }])
    }))

  it.effect("[[ ]], [ ] and (( )) run nothing themselves, but what they contain is read", () =>
    Effect.gen(function* () {
      const a = yield* analyze("[[ -f $(a) ]] && [ -n x ] && (( $(b) + 1 )) && test -f y")
      expect(shape(a)).toEqual([["a"], ["b"], ["test", "-f", "y"]])
      expect(resolved(a)).toBe(true)
    }))

  it.effect("a static string that bash evaluates as arithmetic runs its $(...): unresolved", () =>
    Effect.gen(function* () {
      for (const line of ["[[ 'a[$(id)]' -eq 1 ]]", "test -v 'a[$(id)]'", "(( 'a[$(id)]' ))", "read 'a[$(id)]' <<< x", "a['$(id)']=1"]) {
        expect((yield* analyze(line)).unresolved, line).not.toEqual([])
      }
    }))
})

describe("analyzeShell: words", () => {
  it.effect("quote removal: escapes, single, double, ANSI-C, $\"...\" and concatenations", () =>
    Effect.gen(function* () {
      const a = yield* analyze(`g'i't "pu"sh \\$HOME a\\ b $'a\\nb\\x41\\101\\'' "a\\"b\\\\c\\$d" $"hi" x\\;y ''`)
      expect(a.commands[0]?.argv).toEqual(["git", "push", "$HOME", "a b", "a\nbAA'", 'a"b\\c$d', "hi", "x;y", ""])
    }))

  it.effect("a lone `$` is a literal word; `$\"...\"` drops its `$`; the grammar's `! !` is a negation", () =>
    Effect.gen(function* () {
      expect(shape(yield* analyze('echo $ "$" a$ $"b"'))).toEqual([["echo", "$", "$", "a$", "b"]])
      expect(shape(yield* analyze("! ! ls -la"))).toEqual([["ls", "-la"]])
    }))

  it("ANSI-C escapes decode as bash does", () => {
    expect(decodeAnsiC("\\t\\r\\e\\a\\v\\f\\b")).toBe("\t\r\x1b\x07\v\f\b")
    expect(decodeAnsiC("\\u00e9\\U0001F600\\cA\\c?")).toBe("é😀\x01\x7f")
    expect(decodeAnsiC("\\xg\\q\\")).toBe("\\xg\\q\\")
    expect(decodeAnsiC("ab\\0cd")).toBe("ab")
    expect(decodeAnsiC("\\0101")).toBe("\x08" + "1")
  })

  it.effect("a backslash-newline joins a word, as bash does before reading it", () =>
    Effect.gen(function* () {
      expect(shape(yield* analyze("gi\\\nt pu\\\nsh"))).toEqual([["git", "push"]])
      expect(shape(yield* analyze("git \\\npush"))).toEqual([["git", "push"]])
    }))

  it.effect("expansions, globs and ~user are not static; braces expand; ~ and ~/x are the home directory", () =>
    Effect.gen(function* () {
      const a = yield* analyze("echo $x ${y} $((1+2)) *.ts a?b [ab] {a,b} {1..3} ~ ~/x ~u/x '*' \"{a,b}\" {} a{b")
      expect(a.commands[0]?.words.map((w) => w.value ?? null)).toEqual([
        "echo",
        null,
        null,
        null,
        null,
        null,
        null,
        "a",
        "b",
        "1",
        "2",
        "3",
        home,
        `${home}/x`,
        null,
        "*",
        "{a,b}",
        "{}",
        "a{b"
      ])
      expect(resolved(a)).toBe(true)
    }))

  it.effect("words the grammar puts after a redirection are the command's arguments", () =>
    Effect.gen(function* () {
      const a = yield* analyze("npm test > /dev/null --prefix /elsewhere 2>&1 x")
      expect(a.commands[0]?.argv).toEqual(["npm", "test", "--prefix", "/elsewhere", "x"])
      expect(a.commands[0]?.text).toBe("npm test > /dev/null --prefix /elsewhere 2>&1 x")
    }))

  it.effect("assignments: as written, and statically when they are static", () =>
    Effect.gen(function* () {
      const a = yield* analyze("CI='1' B=$x npm test; PATH=/x; A=1")
      expect(a.commands[0]).toMatchObject({ argv: ["npm", "test"], assignments: ["CI='1'", "B=$x"] })
      expect(a.commands[0]?.staticAssignments).toBeUndefined()
      expect(a.commands[1]).toMatchObject({ argv: [], assignments: ["PATH=/x"], staticAssignments: ["PATH=/x"] })
      expect(a.commands[2]).toMatchObject({ argv: [], assignments: ["A=1"] })
    }))

  it.effect("declarations are commands whose words hold the assignments", () =>
    Effect.gen(function* () {
      const a = yield* analyze("export A=1 B; local c; unset d")
      expect(shape(a)).toEqual([
        ["export", "A=1", "B"],
        ["local", "c"],
        ["unset", "d"]
      ])
    }))
})

describe("analyzeShell: redirections", () => {
  it.effect("kinds, and targets resolved against the directory, with ~ expanded and /dev names kept", () =>
    Effect.gen(function* () {
      const a = yield* analyze("cmd > a >> b 2> c &> d &>> e >| f >& g < h 2>&1 >&2 1>&- <&0 > /dev/null 2>/dev/fd/3 > ~/x > ../up")
      expect(a.commands[0]?.redirects.map((r) => [r.kind, r.target ?? null])).toEqual([
        ["write", `${root}/a`],
        ["write", `${root}/b`],
        ["write", `${root}/c`],
        ["write", `${root}/d`],
        ["write", `${root}/e`],
        ["write", `${root}/f`],
        ["write", `${root}/g`],
        ["read", `${root}/h`],
        ["dup", null],
        ["dup", null],
        ["dup", null],
        ["dup", null],
        ["write", "/dev/null"],
        ["write", "/dev/fd/3"],
        ["write", `${home}/x`],
        ["write", "/work/up"]
      ])
      expect(resolved(a)).toBe(true)
    }))

  it.effect("a target only known at run time is unresolved", () =>
    Effect.gen(function* () {
      for (const line of ['echo > "$f"', "echo > $(mktemp)", "echo > *.txt", "echo >& $fd"]) {
        expect((yield* analyze(line)).unresolved, line).not.toEqual([])
      }
    }))

  it.effect("a redirection after a list or pipeline belongs to its last command; after a group, to every command in it", () =>
    Effect.gen(function* () {
      const list = yield* analyze("a && b | c > out")
      expect(list.commands.map((c) => c.redirects.length)).toEqual([0, 0, 1])
      const group = yield* analyze("{ a; b; } > out")
      expect(group.commands.map((c) => c.redirects.map((r) => r.target))).toEqual([[`${root}/out`], [`${root}/out`]])
      const loop = yield* analyze("for x in 1; do a; done 2> err")
      expect(loop.commands[0]?.redirects.map((r) => r.target)).toEqual([`${root}/err`])
    }))

  it.effect("a redirection with no command is a command with no words", () =>
    Effect.gen(function* () {
      const a = yield* analyze("> truncated")
      expect(a.commands).toEqual([
        { text: "> truncated", words: [], argv: [], assignments: [], staticAssignments: [], redirects: [expect.objectContaining({ kind: "write", target: `${root}/truncated` })] }
      ])
    }))

  it.effect("cd before a relative target makes the line unresolved; absolute targets stay known", () =>
    Effect.gen(function* () {
      expect((yield* analyze("cd /tmp && echo x > rel")).unresolved.join()).toContain("changes directory")
      expect((yield* analyze("(pushd sub; echo > x)")).unresolved).not.toEqual([])
      expect(resolved(yield* analyze("cd sub && echo x > /tmp/abs"))).toBe(true)
    }))

  it.effect("a target is judged where it really lands: a link inside the workspace pointing out", () =>
    Effect.gen(function* () {
      const ws = realpathSync(mkdtempSync(join(tmpdir(), "shell-analysis-")))
      mkdirSync(join(ws, "repo"))
      symlinkSync("/etc", join(ws, "repo", "link"))
      const a = yield* analyze("echo x > link/passwd", join(ws, "repo"))
      expect(a.commands[0]?.redirects[0]).toMatchObject({ target: join(ws, "repo", "link", "passwd"), real: "/etc/passwd" })
      // The kernel follows the link before applying `..`: `link/../hosts` is /hosts, not repo/hosts.
      mkdirSync(join(ws, "deep", "er"), { recursive: true })
      symlinkSync(join(ws, "deep", "er"), join(ws, "repo", "down"))
      const back = yield* analyze("cat < down/../x > down/../../y", join(ws, "repo"))
      expect(back.commands[0]?.redirects.map((r) => [r.target, r.real])).toEqual([
        [join(ws, "repo", "x"), join(ws, "deep", "x")],
        [join(ws, "y"), join(ws, "y")]
      ])
    }))
})

describe("analyzeShell: what cannot be judged statically", () => {
  const unresolvedLines = [
    "$G push",
    "$(echo git) push",
    "g*t push",
    "eval 'ls'",
    "source x.sh",
    ". x.sh",
    "exec > log",
    "bash -c 'ls'",
    "sh -lc ls",
    "zsh -c ls",
    "echo ls | bash",
    "bash -s",
    "bash /dev/stdin",
    "echo x | xargs ls",
    "env A=1 ls",
    "f() { ls; }",
    "function g { ls; }",
    "alias ls=rm",
    "trap 'rm -rf x' EXIT",
    "coproc cat",
    "! ! bash -c ls",
    "! ! eval ls",
    "hash -p /tmp/evil git",
    "watch ls",
    "su -c ls root",
    "sudo $CMD",
    "timeout 5 $CMD",
    "echo 'unterminated",
    "npm test &&",
    "echo @(a|b)",
    "cat <> file"
  ]
  it.effect.each(unresolvedLines)("%s", (line) =>
    Effect.gen(function* () {
      expect((yield* analyze(line)).unresolved).not.toEqual([])
    })
  )

  const resolvedLines = ["ls -la", "bash scripts/test.sh", "command -v git", "npm test 2>&1 | tee out.log", "cd sub && npm test", "echo '$(id)' \"\\$(id)\"", "git commit -m 'eval x; bash -c y'"]
  it.effect.each(resolvedLines)("resolved: %s", (line) =>
    Effect.gen(function* () {
      expect((yield* analyze(line)).unresolved).toEqual([])
    })
  )

  it.effect("the code in bash -c, eval, watch and su -c strings is read too (for deny rules)", () =>
    Effect.gen(function* () {
      const a = yield* analyze(`bash -c 'git push' && eval "rm -rf x" && sudo sh -c "curl x | sh" && watch git fetch`)
      const argvs = shape(a)
      for (const expected of [["git", "push"], ["rm", "-rf", "x"], ["curl", "x"], ["sh"], ["git", "fetch"]]) expect(argvs).toContainEqual(expected)
    }))

  it.effect("a line nested too deep to walk is unresolved, not a crash", () =>
    Effect.gen(function* () {
      const a = yield* analyze(`echo ${"$(".repeat(5000)}id${")".repeat(5000)}`)
      expect(a.unresolved.join()).toContain("nested deeper")
    }))

  it.effect("a parser that cannot load leaves the line unresolved, so the call asks", () =>
    Effect.gen(function* () {
      const failing = makeParserLoader(() => "/nonexistent/tree-sitter-bash.wasm")
      const error = yield* Effect.flip(failing)
      expect(error._tag).toBe("ShellParserError")
      const a = yield* analyzeShellWith(failing)("ls", root)
      expect(a.commands).toEqual([])
      expect(a.unresolved).toEqual([expect.stringContaining("the shell parser could not be loaded")])
      // The process's own parser is unaffected by another loader's failure.
      expect(resolved(yield* analyze("ls"))).toBe(true)
    }))
})
