import { afterAll, describe, expect, it } from "@effect/vitest"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { hookScriptPaths, hookScriptsDigest, unprotectedScript } from "../../../src/layers/permission/hook-scripts.js"
import { makeTemp } from "../../support/temp-dirs.js"

const temp = makeTemp()
afterAll(temp.cleanup)

describe("the scripts a project hook names", () => {
  it("finds files inside the workspace however the command spells them, and names of none yet (trusted as missing); not folders or outside", () => {
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
    expect(paths).toEqual([".claude/hooks/a.sh", "check", "scripts/fmt.js", "scripts/missing.sh", "tools/b.sh"].map((file) => join(root, file)))
  })

  it("a script created after the digest changes it: one missing at trust time is trusted as missing", () => {
    const root = temp.dir("hook-scripts-")
    const paths = hookScriptPaths(root, [".claude/hooks/later.sh"])
    const before = hookScriptsDigest(root, paths)
    mkdirSync(join(root, ".claude", "hooks"), { recursive: true })
    writeFileSync(join(root, ".claude", "hooks", "later.sh"), "echo")
    expect(hookScriptsDigest(root, paths)).not.toBe(before)
  })

  it("a hook may run only a regular file under .claude/ or .custom-agent/", () => {
    const root = temp.dir("hook-scripts-")
    for (const file of [".claude/hooks/a.sh", ".custom-agent/b.sh", "scripts/c.sh"]) {
      mkdirSync(join(root, file, ".."), { recursive: true })
      writeFileSync(join(root, file), "echo")
    }
    expect(unprotectedScript(root, "bash .claude/hooks/a.sh && .custom-agent/b.sh")).toBeUndefined()
    expect(unprotectedScript(root, "npx prettier --write .")).toBeUndefined()
    expect(unprotectedScript(root, "./scripts/c.sh")).toContain("outside .claude/ and .custom-agent/")
    expect(unprotectedScript(root, ".claude/hooks/gone.sh")).toContain("does not exist")
  })

  it("the digest changes with a script's content, not with its time alone", () => {
    const root = temp.dir("hook-scripts-")
    writeFileSync(join(root, "a.sh"), "one")
    const paths = hookScriptPaths(root, ["./a.sh"])
    const before = hookScriptsDigest(root, paths)
    writeFileSync(join(root, "a.sh"), "one")
    expect(hookScriptsDigest(root, paths)).toEqual(before)
    writeFileSync(join(root, "a.sh"), "two")
    expect(hookScriptsDigest(root, paths)).not.toEqual(before)
  })
})
