import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { PermissionEngine } from "../../../src/services/PermissionEngine.js"
import { call, check, decide, decideShell, makeScratch, shellCall } from "./fixture.js"

const { scratch, cleanup } = makeScratch()
afterAll(cleanup)

describe("remembered answers are scoped", () => {
  it.effect("a write answer holds the path, or the glob a person picked, never the tool", () => {
    const s = scratch()
    return Effect.gen(function* () {
      const engine = yield* PermissionEngine
      const write = (p: string) => check(s.root, "write_file", call("write", { paths: [join(s.root, p)] }))
      expect(yield* engine.remember(write("a.txt"), "allow", "session")).toBe(true)
      expect(yield* decide(write("a.txt"))).toMatchObject({ decision: "allow", by: "remembered", scope: "session" })
      expect((yield* decide(write("b.txt"))).decision).toBe("ask")
      expect((yield* decide(check(s.root, "write_file", call("write", { paths: [join(s.root, "a.txt")] }), "default", "ses_other"))).decision).toBe("ask")
      // A picked glob must cover what was asked; it then covers its siblings.
      yield* engine.remember(write("src/x.ts"), "allow", "session", ["src/**"])
      expect(yield* decide(write("src/deep/y.ts"))).toMatchObject({ decision: "allow", reason: "an earlier answer, for this session (src/**)" })
      yield* engine.remember(write("lib/x.ts"), "allow", "session", ["docs/**"])
      expect((yield* decide(write("lib/x.ts"))).decision).toBe("allow")
      expect((yield* decide(write("docs/y.md"))).decision).toBe("ask")
    }).pipe(Effect.provide(s.layer()))
  })

  it.effect("a shell answer holds the analysed command prefix", () => {
    const s = scratch()
    return Effect.gen(function* () {
      const engine = yield* PermissionEngine
      yield* engine.remember(check(s.root, "shell", yield* shellCall(s.root, "git status")), "allow", "session")
      expect(yield* decideShell(s.root, "git status -s")).toMatchObject({ decision: "allow", by: "remembered" })
      expect((yield* decideShell(s.root, "git push")).decision).toBe("ask")
      expect((yield* decideShell(s.root, "git status; rm -rf x")).decision).toBe("ask")
      expect((yield* decideShell(s.root, "git status > /tmp/out")).decision).toBe("ask")
    }).pipe(Effect.provide(s.layer()))
  })

  it.effect("a tool without paths or command is remembered for that exact input; answers persist 'always'", () => {
    const s = scratch()
    return Effect.gen(function* () {
      const mcp = (input: unknown) => check(s.root, "mcp__gh__create_issue", call("network"), "default", "ses_1", input)
      yield* Effect.flatMap(PermissionEngine, (engine) => engine.remember(mcp({ title: "a", body: "b" }), "allow", "always")).pipe(
        Effect.provide(s.layer())
      )
      const again = yield* decide(mcp({ body: "b", title: "a" })).pipe(Effect.provide(s.layer()))
      expect(again).toMatchObject({ decision: "allow", by: "remembered", scope: "always", reason: "an earlier answer, always" })
      expect((yield* decide(mcp({ title: "other" })).pipe(Effect.provide(s.layer()))).decision).toBe("ask")
      expect((yield* decide({ ...mcp({ title: "a", body: "b" }), workspaceRoot: "/other/repo" }).pipe(Effect.provide(s.layer()))).decision).toBe("ask")
    })
  })

  it.effect("an old approvals file naming only a tool is read, and never matches", () => {
    const s = scratch()
    mkdirSync(s.data, { recursive: true })
    writeFileSync(s.approvals, JSON.stringify({ approvals: [{ workspaceRoot: s.root, tool: "write_file", decision: "allow", createdAt: "2026-01-01T00:00:00.000Z" }] }))
    return Effect.gen(function* () {
      expect((yield* decide(check(s.root, "write_file", call("write", { paths: [join(s.root, "a.txt")] })))).decision).toBe("ask")
    }).pipe(Effect.provide(s.layer()))
  })
})
