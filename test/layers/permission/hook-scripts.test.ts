import { afterAll, describe, expect, it } from "@effect/vitest"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { hookScriptPaths, hookScriptsDigest } from "../../../src/layers/permission/hook-scripts.js"
import { makeTemp } from "../../support/temp-dirs.js"

const temp = makeTemp()
afterAll(temp.cleanup)

describe("the scripts a project hook names", () => {
  it("finds files inside the workspace however the command spells them, and nothing else", () => {
    const root = temp.dir("hook-scripts-")
    for (const file of [".claude/hooks/a.sh", "scripts/fmt.js", "check", "tools/b.sh"]) {
      mkdirSync(join(root, file, ".."), { recursive: true })
      writeFileSync(join(root, file), file)
    }
    const paths = hookScriptPaths(root, [
      'bash .claude/hooks/a.sh --fast',
      'node "$CLAUDE_PROJECT_DIR/scripts/fmt.js"',
      "${CUSTOM_AGENT_PROJECT_DIR}/tools/b.sh && ./check",
      "jq -r .tool_input.file_path | xargs /usr/bin/prettier --write",
      "../outside.sh; $HOME/x.sh; scripts/missing.sh; scripts"
    ])
    expect(paths).toEqual([".claude/hooks/a.sh", "check", "scripts/fmt.js", "tools/b.sh"].map((file) => join(root, file)))
  })

  it("the digest changes with a script's content, not with its time alone", () => {
    const root = temp.dir("hook-scripts-")
    writeFileSync(join(root, "a.sh"), "one")
    const paths = hookScriptPaths(root, ["./a.sh"])
    const before = hookScriptsDigest(root, paths)
    writeFileSync(join(root, "a.sh"), "one")
    expect(hookScriptsDigest(root, paths)).toBe(before)
    writeFileSync(join(root, "a.sh"), "two")
    expect(hookScriptsDigest(root, paths)).not.toBe(before)
  })
})
