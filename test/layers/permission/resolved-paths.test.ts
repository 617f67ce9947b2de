import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { call, check, decide, makeScratch, writeRules } from "./fixture.js"

const { scratch, cleanup } = makeScratch()
afterAll(cleanup)

/** A workspace with `src/out -> OUTSIDE/`, `src/envlink -> ../.env` and a dangling `src/later -> OUTSIDE/new`. */
const linked = () => {
  const s = scratch()
  mkdirSync(join(s.root, "src"), { recursive: true })
  mkdirSync(s.outside, { recursive: true })
  writeFileSync(join(s.root, ".env"), "SECRET=1\n")
  symlinkSync(s.outside, join(s.root, "src", "out"))
  symlinkSync("../.env", join(s.root, "src", "envlink"))
  symlinkSync(join(s.outside, "new"), join(s.root, "src", "later"))
  return s
}

describe("paths are resolved before any decision", () => {
  it.effect("an allow path rule does not follow a link out of the workspace", () => {
    const s = linked()
    writeRules(s.userRules, [{ tool: "write_file", path: "src/**", decision: "allow" }])
    return Effect.gen(function* () {
      const write = (p: string) => decide(check(s.root, "write_file", call("write", { paths: [join(s.root, p)] })))
      expect((yield* write("src/a.ts")).decision).toBe("allow")
      expect((yield* write("src/out/x.ts")).decision).toBe("ask")
      expect((yield* write("src/out/deep/new/file.ts")).decision).toBe("ask")
      expect((yield* write("src/later")).decision).toBe("ask")
    }).pipe(Effect.provide(s.layer()))
  })

  it.effect("a deny path rule catches a link that points at the denied file", () => {
    const s = linked()
    writeRules(s.userRules, [
      { tool: "*", path: ".env", decision: "deny" },
      { tool: "read_file", decision: "allow" },
      { tool: "write_file", path: "src/**", decision: "allow" }
    ])
    return Effect.gen(function* () {
      for (const tool of ["read_file", "write_file", "edit_file"]) {
        const verdict = yield* decide(check(s.root, tool, call(tool === "read_file" ? "read" : "write", { paths: [join(s.root, "src", "envlink")] })))
        expect(verdict, tool).toMatchObject({ decision: "deny", rule: { pattern: ".env" } })
      }
    }).pipe(Effect.provide(s.layer()))
  })

  it.effect("an absolute path rule is the only way to allow outside", () => {
    const s = linked()
    writeRules(s.userRules, [{ tool: "write_file", path: `${s.outside}/**`, decision: "allow" }])
    return Effect.gen(function* () {
      const verdict = yield* decide(check(s.root, "write_file", call("write", { paths: [join(s.root, "src", "out", "x.ts")], outsideWorkspace: true })))
      expect(verdict.decision).toBe("allow")
    }).pipe(Effect.provide(s.layer()))
  })
})
