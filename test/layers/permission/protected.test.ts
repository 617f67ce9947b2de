import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync, symlinkSync } from "node:fs"
import { join } from "node:path"
import { call, check, decide, decideShell, makeScratch, remember, writeRules } from "./fixture.js"

const { scratch, cleanup } = makeScratch()
afterAll(cleanup)

const write = (path: string, outsideWorkspace = false) => call("write", { paths: [path], outsideWorkspace })

describe("protected paths", () => {
  it.effect("the agent's own files, .git, the config and data directories ask whatever allows them", () => {
    const s = scratch()
    writeRules(s.userRules, [
      { tool: "write_file", decision: "allow" },
      { tool: "write_file", path: "**", decision: "allow" },
      { tool: "write_file", path: `${s.dir}/**`, decision: "allow" },
      { tool: "shell", command: "echo *", decision: "allow", path: "**" }
    ])
    return Effect.gen(function* () {
      for (const target of [
        join(s.root, ".custom-agent", "permissions.json"),
        join(s.root, ".custom-agent", "new-file.json"),
        join(s.root, ".git", "hooks", "pre-commit"),
        join(s.root, ".git", "config"),
        join(s.config, "permissions.json"),
        join(s.data, "approvals.json")
      ]) {
        const inside = target.startsWith(`${s.root}/`)
        for (const mode of ["default", "accept-edits"] as const) {
          const verdict = yield* decide(check(s.root, "write_file", write(target, !inside), mode))
          expect(verdict, `${target} in ${mode}`).toMatchObject({ decision: "ask" })
          expect(verdict.reason).toContain("protected")
        }
      }
      expect((yield* decide(check(s.root, "write_file", write(join(s.root, "src", "a.ts"))))).decision).toBe("allow")
      // Shell redirections into them are judged the same way.
      expect((yield* decideShell(s.root, "echo '{}' > .custom-agent/permissions.json")).decision).toBe("ask")
      expect((yield* decideShell(s.root, "echo x >> .git/hooks/pre-commit")).decision).toBe("ask")
      expect((yield* decideShell(s.root, "echo ok > out.txt")).decision).toBe("allow")
      // bypass is the one mode that gives this up.
      expect((yield* decide(check(s.root, "write_file", write(join(s.root, ".custom-agent", "permissions.json")), "bypass"))).decision).toBe("allow")
      // Reading the workspace's own config is fine; reading the data directory is not.
      expect((yield* decide(check(s.root, "read_file", call("read", { paths: [join(s.root, ".custom-agent", "permissions.json")] })))).decision).toBe("allow")
    }).pipe(Effect.provide(s.layer()))
  })

  it.effect("a .git or .gitmodules at any depth asks for anything but reads, judged as written and where it lands", () => {
    const s = scratch()
    writeRules(s.userRules, [
      { tool: "write_file", path: "**", decision: "allow" },
      { tool: "shell", command: "echo *", decision: "allow", path: "**" }
    ])
    mkdirSync(join(s.root, "sub", ".git"), { recursive: true })
    mkdirSync(join(s.root, "src"), { recursive: true })
    symlinkSync(join(s.root, "sub", ".git"), join(s.root, "src", "meta"))
    return Effect.gen(function* () {
      for (const target of [
        "sub/.git/config",
        "sub/.git/hooks/pre-commit",
        "sub/.git/HEAD",
        "a/b/c/.git/config",
        "x/.git",
        ".gitmodules",
        "sub/.gitmodules",
        "sub/.GIT/config",
        "sub/.git./config",
        "sub/.g\u200cit/config",
        // A link whose name says nothing: it lands in sub/.git.
        "src/meta/config"
      ]) {
        for (const mode of ["default", "accept-edits"] as const) {
          const verdict = yield* decide(check(s.root, "write_file", write(join(s.root, target)), mode))
          expect(verdict, `${target} in ${mode}`).toMatchObject({ decision: "ask", firm: true })
          expect(verdict.reason).toContain("protected")
        }
        expect((yield* decide(check(s.root, "read_file", call("read", { paths: [join(s.root, target)] })))).decision, `reading ${target}`).toBe("allow")
      }
      expect((yield* decideShell(s.root, "echo x >> sub/.git/config")).decision).toBe("ask")
      expect((yield* decideShell(s.root, "cd sub && echo x > .gitmodules")).decision).toBe("ask")
      // A repository of another project, outside, is protected too (not only asked as outside).
      expect(yield* decide(check(s.root, "write_file", write(join(s.dir, "other", ".git", "config"), true)))).toMatchObject({ decision: "ask", firm: true })
      // The names beside them are ordinary files.
      for (const target of [".gitignore", "sub/.gitattributes", ".github/workflows/ci.yml", "repo.git/config", "git/config", "sub/.gitkeep"]) {
        expect((yield* decide(check(s.root, "write_file", write(join(s.root, target))))).decision, target).toBe("allow")
      }
      expect((yield* decide(check(s.root, "write_file", write(join(s.root, "sub", ".git", "config")), "bypass"))).decision).toBe("allow")
    }).pipe(Effect.provide(s.layer()))
  })

  it.effect("a workspace kept under a folder named .git is not protected as a whole", () => {
    const s = scratch()
    const root = join(s.root, ".git", "worktree")
    mkdirSync(join(root, ".custom-agent"), { recursive: true })
    writeRules(s.userRules, [{ tool: "write_file", path: "**", decision: "allow" }])
    return Effect.gen(function* () {
      expect((yield* decide(check(root, "write_file", write(join(root, "a.ts"))))).decision).toBe("allow")
      expect((yield* decide(check(root, "write_file", write(join(root, "sub", ".git", "config"))))).decision).toBe("ask")
    }).pipe(Effect.provide(s.layer()))
  })

  it.effect("reading a private place (a credential store, the data directory) is a firm question under any allow, the workspace holding it or not", () => {
    const s = scratch()
    writeRules(s.userRules, [{ tool: "read_file", decision: "allow" }, { tool: "read_file", path: "/**", decision: "allow" }])
    const keys = join(s.root, ".ssh")
    return Effect.gen(function* () {
      for (const target of [join(keys, "id_rsa"), join(s.data, "approvals.json")]) {
        const verdict = yield* decide(check(s.root, "read_file", call("read", { paths: [target], outsideWorkspace: !target.startsWith(`${s.root}/`) })))
        expect(verdict, target).toMatchObject({ decision: "ask", firm: true })
        expect(verdict.reason).toBe(`${target} is private: reading it always needs approval`)
      }
      expect((yield* decide(check(s.root, "read_file", call("read", { paths: [join(s.root, "notes.txt")] })))).decision).toBe("allow")
    }).pipe(Effect.provide(s.layer({ privateDirectories: Effect.succeed([s.config, s.data, keys]) })))
  })

  it.effect("a remembered 'always' does not open a protected file", () => {
    const s = scratch()
    return Effect.gen(function* () {
      const rules = join(s.root, ".custom-agent", "permissions.json")
      yield* remember(check(s.root, "write_file", write(rules)), "allow", "always", [".custom-agent/**"])
      expect((yield* decide(check(s.root, "write_file", write(rules)))).decision).toBe("ask")
    }).pipe(Effect.provide(s.layer()))
  })

  it.effect("a link into a protected directory is protected too", () => {
    const s = scratch()
    writeRules(s.userRules, [{ tool: "write_file", path: "**", decision: "allow" }])
    mkdirSync(join(s.root, "src"), { recursive: true })
    symlinkSync(join(s.root, ".custom-agent"), join(s.root, "src", "cfg"))
    symlinkSync(s.data, join(s.root, "data-link"))
    return Effect.gen(function* () {
      expect((yield* decide(check(s.root, "write_file", write(join(s.root, "src", "cfg", "permissions.json"))))).decision).toBe("ask")
      expect((yield* decide(check(s.root, "write_file", write(join(s.root, "data-link", "x.json"), true)))).decision).toBe("ask")
      const read = yield* decide(check(s.root, "read_file", call("read", { paths: [join(s.root, "data-link", "approvals.json")], outsideWorkspace: true })))
      expect(read.decision).toBe("ask")
    }).pipe(Effect.provide(s.layer()))
  })
})
