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
    }).pipe(Effect.provide(s.layer({ privateDirectories: [s.config, s.data, keys] })))
  })

  it.effect("a remembered 'always' does not open a protected file", () => {
    const s = scratch()
    return Effect.gen(function* () {
      const rules = join(s.root, ".custom-agent", "permissions.json")
      yield* remember(check(s.root, "write_file", write(rules)), "allow", "always", ["**"])
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
