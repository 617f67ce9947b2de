import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { GREP_DEFAULT_RESULTS, GREP_MAX_FILE_BYTES, makeGrepTool } from "../../../src/layers/tools/grep.js"
import { prepare, run, tempWorkspace, writeFiles } from "./workspace-fixture.js"
import { fixedPlaces } from "../../../src/layers/private-places.js"

/** No private places here: walk-bounds.test.ts covers them. */
const grepTool = makeGrepTool(fixedPlaces([]))

describe("grep", () => {
  it.scoped("finds matching lines as path:line:text, honouring .gitignore and skipping .git", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      yield* writeFiles(root, {
        ".gitignore": "dist/\n",
        ".git/config": "TODO in git\n",
        "dist/bundle.js": "// TODO generated\n",
        "src/a.ts": "const a = 1\n// TODO: fix a\n",
        "src/b.ts": "// todo lower case\n// TODO: fix b\r\n",
        "src/sub/.gitignore": "secret.ts\n",
        "src/sub/secret.ts": "// TODO hidden\n"
      })
      const call = yield* prepare(grepTool, { pattern: "TODO: \\w+" }, root)
      expect(call.risk).toBe("read")
      expect(call.summary).toBe("grep /TODO: \\w+/ in .")
      const result = yield* call.execute
      expect(result).toEqual({ output: "src/a.ts:2:// TODO: fix a\nsrc/b.ts:2:// TODO: fix b", isError: false })
    }))

  it.scoped("ignore_case, a path and a glob narrow or widen the search", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      yield* writeFiles(root, { "src/a.ts": "TODO a\n", "src/b.md": "todo b\n", "lib/c.ts": "todo c\n" })
      const anyCase = yield* run(grepTool, { pattern: "todo", ignore_case: true }, root)
      expect(anyCase.output).toBe("lib/c.ts:1:todo c\nsrc/a.ts:1:TODO a\nsrc/b.md:1:todo b")
      const onlyTs = yield* run(grepTool, { pattern: "todo", ignore_case: true, glob: "*.ts" }, root)
      expect(onlyTs.output).toBe("lib/c.ts:1:todo c\nsrc/a.ts:1:TODO a")
      const inSrc = yield* run(grepTool, { pattern: "todo", ignore_case: true, path: "src", glob: "src/**/*.ts" }, root)
      expect(inSrc.output).toBe("src/a.ts:1:TODO a")
      const oneFile = yield* run(grepTool, { pattern: "b", path: "src/b.md" }, root)
      expect(oneFile.output).toBe("src/b.md:1:todo b")
    }))

  it.scoped("caps the results with a note, by default and by max_results", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      yield* writeFiles(root, { "many.txt": Array.from({ length: 500 }, (_, i) => `hit ${i + 1}`).join("\n") })
      const byDefault = yield* run(grepTool, { pattern: "hit" }, root)
      const lines = byDefault.output.split("\n")
      expect(lines).toHaveLength(GREP_DEFAULT_RESULTS + 1)
      expect(lines[GREP_DEFAULT_RESULTS - 1]).toBe(`many.txt:${GREP_DEFAULT_RESULTS}:hit ${GREP_DEFAULT_RESULTS}`)
      expect(lines[GREP_DEFAULT_RESULTS]).toContain(`[Capped at ${GREP_DEFAULT_RESULTS} matches`)
      const three = yield* run(grepTool, { pattern: "hit", max_results: 3 }, root)
      expect(three.output).toBe("many.txt:1:hit 1\nmany.txt:2:hit 2\nmany.txt:3:hit 3\n[Capped at 3 matches; narrow the search with path, glob or a more specific pattern.]")
    }))

  it.scoped("skips binary and huge files, and cuts long lines", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      yield* writeFiles(root, {
        "blob.bin": Buffer.concat([Buffer.from("needle"), Buffer.from([0, 1, 2])]),
        "huge.txt": `needle\n${"x".repeat(GREP_MAX_FILE_BYTES)}`,
        "wide.txt": `needle${"y".repeat(1000)}`
      })
      const result = yield* run(grepTool, { pattern: "needle" }, root)
      expect(result.output).toBe(
        `wide.txt:1:needle${"y".repeat(294)}… [706 more characters]\n[Skipped 1 files over 2 MiB.]`
      )
    }))

  it.scoped("no match is a plain result, not an error", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      yield* writeFiles(root, { "a.txt": "hay\n" })
      const result = yield* run(grepTool, { pattern: "needle" }, root)
      expect(result).toEqual({ output: "No matches for /needle/ in ..", isError: false })
    }))

  it.scoped("an invalid regex is a ToolInputError", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      const error = yield* Effect.flip(prepare(grepTool, { pattern: "foo(" }, root))
      expect(error._tag).toBe("ToolInputError")
      expect(error.message).toContain("pattern: not a usable regular expression: missing closing )")
    }))

  it.scoped("a lookahead is refused with the reason; a pattern that backtracks for minutes in JavaScript searches at once", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      const lookahead = yield* Effect.flip(prepare(grepTool, { pattern: "foo(?=bar)" }, root))
      expect(lookahead.message).toContain("lookarounds")
      yield* writeFiles(root, { "as.txt": `${"a".repeat(40)}b\n${"a".repeat(12)}\n` })
      const result = yield* run(grepTool, { pattern: "^(a+)+$" }, root)
      expect(result).toEqual({ output: `as.txt:2:${"a".repeat(12)}`, isError: false })
    }))

  it.scoped("invalid input is a ToolInputError naming the field", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      const missing = yield* Effect.flip(prepare(grepTool, { path: "src" }, root))
      expect(missing.message).toContain("pattern: is missing")
      const tooMany = yield* Effect.flip(prepare(grepTool, { pattern: "a", max_results: 1_000_000 }, root))
      expect(tooMany.message).toContain("max_results")
    }))
})
