import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describeCover } from "../../../src/domain/permissions.js"
import { PermissionEngine } from "../../../src/services/PermissionEngine.js"
import { call, check, decide, decideShell, makeScratch, remember, shellCall } from "./fixture.js"

const { scratch, cleanup } = makeScratch()
afterAll(cleanup)

describe("remembered answers are scoped", () => {
  it.effect("a write answer holds the path, or the glob a person picked among those offered, never the tool", () => {
    const s = scratch()
    return Effect.gen(function* () {
      const write = (p: string) => check(s.root, "write_file", call("write", { paths: [join(s.root, p)] }))
      expect(yield* remember(write("a.txt"), "allow", "session")).toBe(true)
      expect(yield* decide(write("a.txt"))).toMatchObject({ decision: "allow", by: "remembered", scope: "session" })
      expect((yield* decide(write("b.txt"))).decision).toBe("ask")
      expect((yield* decide(check(s.root, "write_file", call("write", { paths: [join(s.root, "a.txt")] }), "default", "ses_other"))).decision).toBe("ask")
      // A picked glob the question offered (its folder's) then covers the folder.
      yield* remember(write("src/x.ts"), "allow", "session", ["src/**"])
      expect(yield* decide(write("src/deep/y.ts"))).toMatchObject({ decision: "allow", reason: "an earlier answer, for this session (src/**)" })
      // One it did not offer is refused: nothing is remembered, not even the path asked.
      expect((yield* Effect.flip(remember(write("lib/x.ts"), "allow", "session", ["docs/**"])))._tag).toBe("CoverNotOffered")
      expect((yield* decide(write("lib/x.ts"))).decision).toBe("ask")
      expect((yield* decide(write("docs/y.md"))).decision).toBe("ask")
    }).pipe(Effect.provide(s.layer()))
  })

  it.effect("a shell answer holds the analysed command prefix", () => {
    const s = scratch()
    return Effect.gen(function* () {
      yield* remember(check(s.root, "shell", yield* shellCall(s.root, "git status")), "allow", "session")
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
      yield* remember(mcp({ title: "a", body: "b" }), "allow", "always").pipe(
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

describe("an answer about a path covers every tool that touches it the same way", () => {
  const at = (root: string, p: string) => join(root, p)
  const write = (root: string, tool: "write_file" | "edit_file", p: string) => check(root, tool, call("write", { paths: [at(root, p)] }))
  const read = (root: string, tool: "read_file" | "grep" | "list_files", p: string) => check(root, tool, call("read", { paths: [at(root, p)] }))

  it.effect("a deny of an edit denies write_file, edit_file and shell redirections into the file, through links too", () => {
    const s = scratch()
    mkdirSync(join(s.root, "src"), { recursive: true })
    writeFileSync(join(s.root, "src", "math.js"), "1\n")
    symlinkSync("math.js", join(s.root, "src", "alias.js"))
    return Effect.gen(function* () {
      expect(yield* remember(write(s.root, "edit_file", "src/math.js"), "deny", "always")).toBe(true)
      for (const tool of ["write_file", "edit_file"] as const) {
        expect(yield* decide(write(s.root, tool, "src/math.js"))).toMatchObject({ decision: "deny", by: "remembered", scope: "always" })
        expect((yield* decide(write(s.root, tool, "src/alias.js"))).decision).toBe("deny")
      }
      for (const line of ["echo x > src/math.js", "echo x >> ./src/../src/math.js", "true && cat a 2> src/math.js", "echo x > src/alias.js"]) {
        expect((yield* decideShell(s.root, line)).decision, line).toBe("deny")
      }
      // Only that file, and only changes to it.
      expect((yield* decide(write(s.root, "write_file", "src/other.js"))).decision).toBe("ask")
      expect((yield* decideShell(s.root, "echo x > src/other.js")).decision).toBe("ask")
      expect((yield* decide(read(s.root, "read_file", "src/math.js"))).decision).toBe("allow")
    }).pipe(Effect.provide(s.layer({ projectRoots: [s.root] })))
  })

  it.effect("an allow covers as much as was asked: a write allow covers an edit, never a shell line; a list allow never covers reading", () => {
    const s = scratch()
    const out = (p: string) => join(s.outside, p)
    mkdirSync(s.outside, { recursive: true })
    return Effect.gen(function* () {
      yield* remember(write(s.root, "write_file", "a.txt"), "allow", "session")
      expect(yield* decide(write(s.root, "edit_file", "a.txt"))).toMatchObject({ decision: "allow", by: "remembered" })
      expect((yield* decideShell(s.root, "echo x > a.txt")).decision).toBe("ask")
      expect((yield* decide(check(s.root, "mcp__fs__write", call("write", { paths: [at(s.root, "a.txt")] })))).decision).toBe("ask")
      // Outside the workspace: reading covers grep and listing; listing covers only listing.
      yield* remember(check(s.root, "read_file", call("read", { paths: [out("notes.txt")], outsideWorkspace: true })), "allow", "session")
      for (const tool of ["read_file", "grep", "list_files"]) {
        expect((yield* decide(check(s.root, tool, call("read", { paths: [out("notes.txt")], outsideWorkspace: true })))).decision, tool).toBe("allow")
      }
      yield* remember(check(s.root, "list_files", call("read", { paths: [out("dir")], outsideWorkspace: true })), "allow", "session")
      expect((yield* decide(check(s.root, "list_files", call("read", { paths: [out("dir")], outsideWorkspace: true })))).decision).toBe("allow")
      expect((yield* decide(check(s.root, "grep", call("read", { paths: [out("dir")], outsideWorkspace: true })))).decision).toBe("ask")
      // A deny of a read denies the other readers and `<`.
      writeFileSync(join(s.root, ".env"), "TOKEN=x\n")
      yield* remember(read(s.root, "read_file", ".env"), "deny", "session")
      for (const tool of ["read_file", "grep", "list_files"] as const) expect((yield* decide(read(s.root, tool, ".env"))).decision, tool).toBe("deny")
      expect((yield* decideShell(s.root, "cat < .env")).decision).toBe("deny")
    }).pipe(Effect.provide(s.layer()))
  })

  it.effect("a remembered deny beats a remembered allow, whatever their scopes", () => {
    const s = scratch()
    return Effect.gen(function* () {
      yield* remember(write(s.root, "write_file", "a.txt"), "allow", "session")
      yield* remember(write(s.root, "edit_file", "a.txt"), "deny", "always")
      expect(yield* decide(write(s.root, "write_file", "a.txt"))).toMatchObject({ decision: "deny", by: "remembered", scope: "always" })
    }).pipe(Effect.provide(s.layer()))
  })

  it.effect("a path is stored as the literal name, where it landed when asked", () => {
    const s = scratch()
    mkdirSync(s.outside, { recursive: true })
    return Effect.gen(function* () {
      const engine = yield* PermissionEngine
      // A file named like a glob is that one file.
      yield* remember(write(s.root, "write_file", "*"), "allow", "session")
      expect((yield* decide(write(s.root, "write_file", "b.txt"))).decision).toBe("ask")
      expect((yield* decide(write(s.root, "write_file", "*"))).decision).toBe("allow")
      // The cover is fixed when the question is shown: a link swapped in before the answer changes nothing.
      const asked = write(s.root, "write_file", "c.txt")
      const shown = yield* engine.lasting(asked)
      expect(Option.getOrThrow(shown)).toEqual({ tool: "write_file", paths: ["c.txt"], access: "write" })
      symlinkSync(join(s.outside, "victim"), join(s.root, "c.txt"))
      const stored = yield* engine.remember(asked, "allow", "always", Option.getOrThrow(shown))
      expect(stored).toMatchObject({ paths: ["c.txt"], access: "write", scope: "always" })
      expect((yield* decide(check(s.root, "write_file", call("write", { paths: [join(s.outside, "victim")], outsideWorkspace: true })))).decision).toBe("ask")
      // A picked glob must be one the question offered (here only `*`, the top folder's files): never the whole workspace, never another folder.
      const picked = yield* engine.remember(asked, "allow", "session", Option.getOrThrow(shown), { paths: ["*"] })
      expect(picked.paths).toEqual(["*"])
      for (const wider of [["**"], ["docs/**"], ["*", "docs/*"]]) {
        const refused = yield* Effect.flip(engine.remember(asked, "allow", "session", Option.getOrThrow(shown), { paths: wider }))
        expect(refused._tag, wider.join(" ")).toBe("CoverNotOffered")
      }
    }).pipe(Effect.provide(s.layer()))
  })
})

describe("an answer about a command covers what the analysis shows", () => {
  it.effect("the cover is the analysed prefix (`npm test *`), shown before it is stored", () => {
    const s = scratch()
    return Effect.gen(function* () {
      const engine = yield* PermissionEngine
      const cover = Option.getOrThrow(yield* engine.lasting(check(s.root, "shell", yield* shellCall(s.root, "npm test"))))
      expect(cover).toEqual({ tool: "shell", commands: ["npm test *"] })
      expect(describeCover(cover)).toContain("npm test *")
      expect(Option.getOrThrow(yield* engine.lasting(check(s.root, "shell", yield* shellCall(s.root, "rm -rf build")))).commands).toEqual(["rm -rf build"])
      expect(Option.isNone(yield* engine.lasting(check(s.root, "shell", yield* shellCall(s.root, "echo x > out.txt"))))).toBe(true)
    }).pipe(Effect.provide(s.layer()))
  })

  it.effect("a deny holds wherever the command stands in a line, and for exactly its words", () => {
    const s = scratch()
    return Effect.gen(function* () {
      yield* remember(check(s.root, "shell", yield* shellCall(s.root, "rm -rf build")), "deny", "session")
      for (const line of ["rm -rf build", "ls; rm -rf build", "true && env rm -rf build", "echo $(rm -rf build)", "/bin/rm -rf build"]) {
        expect(yield* decideShell(s.root, line), line).toMatchObject({ decision: "deny", by: "remembered" })
      }
      expect((yield* decideShell(s.root, "rm -rf build2")).decision).toBe("ask")
      expect((yield* decideShell(s.root, "rm -rf build extra")).decision).toBe("ask")
      // A word only known when it runs may make it the denied command: only a person decides.
      expect(yield* decideShell(s.root, "rm -rf build $X")).toMatchObject({ decision: "ask", firm: true })
      yield* remember(check(s.root, "shell", yield* shellCall(s.root, "git push origin main")), "deny", "session")
      expect((yield* decideShell(s.root, "git status && git -C . push --force")).decision).toBe("deny")
    }).pipe(Effect.provide(s.layer()))
  })
})

describe("remembered answers can be listed and revoked", () => {
  const write = (root: string, p: string) => check(root, "write_file", call("write", { paths: [join(root, p)] }))

  it.effect("revoke forgets only the given id, and the file keeps who revoked what", () => {
    const s = scratch()
    return Effect.gen(function* () {
      const engine = yield* PermissionEngine
      yield* remember(write(s.root, "a.txt"), "allow", "always")
      yield* remember(write(s.root, "b.txt"), "deny", "always")
      yield* remember(write(s.root, "c.txt"), "allow", "session")
      const listed = yield* engine.listRemembered()
      expect(listed.map((a) => [a.paths?.[0], a.decision, a.scope])).toEqual([
        ["a.txt", "allow", "always"],
        ["b.txt", "deny", "always"],
        ["c.txt", "allow", "session"]
      ])
      expect(new Set(listed.map((a) => a.id)).size).toBe(3)
      const [a, b, c] = listed
      if (a === undefined || b === undefined || c === undefined) throw new Error("three answers")
      expect(yield* engine.revokeRemembered(a.id, "cli")).toMatchObject({ id: a.id, paths: ["a.txt"] })
      expect((yield* decide(write(s.root, "a.txt"))).decision).toBe("ask")
      expect((yield* decide(write(s.root, "b.txt"))).decision).toBe("deny")
      expect((yield* engine.listRemembered()).map((x) => x.id)).toEqual([b.id, c.id])
      // A session answer is revoked the same way.
      yield* engine.revokeRemembered(c.id, "rpc:web")
      expect((yield* decide(write(s.root, "c.txt"))).decision).toBe("ask")
      // An id that is not there (already revoked, a prefix, empty) touches nothing.
      for (const id of [a.id, b.id.slice(0, 6), "", "*"]) {
        const failed = yield* Effect.flip(engine.revokeRemembered(id, "cli"))
        expect(failed._tag).toBe("RememberedAnswerNotFound")
      }
      expect((yield* engine.listRemembered()).map((x) => x.id)).toEqual([b.id])
      const file = JSON.parse(readFileSync(s.approvals, "utf8"))
      expect(file.approvals).toHaveLength(1)
      expect(file.revoked.map((r: { answer: { id: string }; by: string }) => [r.answer.id, r.by])).toEqual([
        [a.id, "cli"],
        [c.id, "rpc:web"]
      ])
    }).pipe(Effect.provide(s.layer()))
  })

  it.effect("a revoke by another process holds at once, and is not undone by this one's next answer", () => {
    const s = scratch()
    return Effect.gen(function* () {
      const running = yield* Effect.provide(PermissionEngine, s.layer())
      const other = yield* Effect.provide(PermissionEngine, s.layer())
      const kept = Option.getOrThrow(yield* running.lasting(write(s.root, "a.txt")))
      const stored = yield* running.remember(write(s.root, "a.txt"), "allow", "always", kept)
      expect((yield* running.decide(write(s.root, "a.txt"))).decision).toBe("allow")
      yield* other.revokeRemembered(stored.id, "cli")
      expect((yield* running.decide(write(s.root, "a.txt"))).decision).toBe("ask")
      yield* running.remember(write(s.root, "b.txt"), "allow", "always", Option.getOrThrow(yield* running.lasting(write(s.root, "b.txt"))))
      expect((yield* running.decide(write(s.root, "a.txt"))).decision).toBe("ask")
      expect((yield* other.listRemembered()).map((x) => x.paths)).toEqual([["b.txt"]])
    })
  })

  it.effect("an answer stored before ids has one derived from its content, the same in every process", () => {
    const s = scratch()
    mkdirSync(s.data, { recursive: true })
    const old = { workspaceRoot: s.root, tool: "edit_file", decision: "deny", paths: ["a.txt"], createdAt: "2026-01-01T00:00:00.000Z" }
    writeFileSync(s.approvals, JSON.stringify({ approvals: [old] }))
    return Effect.gen(function* () {
      // Its tool's access applies: an old deny of an edit denies write_file too.
      expect((yield* decide(write(s.root, "a.txt"))).decision).toBe("deny")
      const first = yield* Effect.flatMap(PermissionEngine, (engine) => engine.listRemembered()).pipe(Effect.provide(s.layer()))
      const again = yield* Effect.flatMap(PermissionEngine, (engine) => engine.listRemembered()).pipe(Effect.provide(s.layer()))
      expect(first[0]?.id).toMatch(/^ans_[0-9a-f]{16}$/)
      expect(again[0]?.id).toBe(first[0]?.id)
      yield* Effect.flatMap(PermissionEngine, (engine) => engine.revokeRemembered(first[0]?.id ?? "", "cli")).pipe(Effect.provide(s.layer()))
      expect((yield* decide(write(s.root, "a.txt"))).decision).toBe("ask")
    }).pipe(Effect.provide(s.layer()))
  })
})
