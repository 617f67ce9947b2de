import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { chosenCover, lastingChoices } from "../../src/domain/lasting-choices.js"
import type { AnswerCover } from "../../src/domain/permissions.js"

const write = (...paths: ReadonlyArray<string>): AnswerCover => ({ tool: "write_file", paths: [...paths], access: "write" })

describe("what a question offers for a lasting answer", () => {
  it("paths: as shown, the folder's files, everything under the folder; never the whole workspace", () => {
    expect(lastingChoices(write("src/lib/a.ts"))).toEqual([
      { label: "src/lib/a.ts (as shown)", chosen: undefined },
      { label: "src/lib/*", chosen: { paths: ["src/lib/*"] } },
      { label: "src/lib/**", chosen: { paths: ["src/lib/**"] } }
    ])
    // At the top: the top folder's files, and no `**`.
    expect(lastingChoices(write("a.txt")).map((choice) => choice.label)).toEqual(["a.txt (as shown)", "*"])
    // Several paths: their folders, each once.
    expect(lastingChoices(write("src/a.ts", "src/b.ts", "lib/c.ts")).map((choice) => choice.label)).toEqual([
      "src/a.ts, src/b.ts, lib/c.ts (as shown)",
      "src/*, lib/*",
      "src/**, lib/**"
    ])
  })

  it("a path outside the workspace, a command, an exact input: only the cover shown", () => {
    expect(lastingChoices(write("/etc/hosts"))).toEqual([{ label: "/etc/hosts (as shown)", chosen: undefined }])
    expect(lastingChoices({ tool: "shell", commands: ["npm test *"] })).toHaveLength(1)
    expect(lastingChoices({ tool: "mcp__x__y", input: "{}" })).toHaveLength(1)
  })

  it("a name with wildcard characters stays literal: its folder is offered, escaped as the cover has it", () => {
    // `literalGlob` escaped `[`: the folder `a[1]` is `a\[1\]`.
    expect(lastingChoices(write("a\\[1\\]/b.txt")).map((choice) => choice.label)).toEqual(["a\\[1\\]/b.txt (as shown)", "a\\[1\\]/*", "a\\[1\\]/**"])
  })
})

describe("a chosen cover is stored only within what the question offered", () => {
  it("an offered choice, or part of one, is stored; nothing chosen stores what was shown", () => {
    expect(chosenCover(write("src/a.ts"), { paths: ["src/**"] })).toEqual(Either.right(write("src/**")))
    expect(chosenCover(write("src/a.ts", "lib/b.ts"), { paths: ["lib/*"] })).toEqual(Either.right(write("lib/*")))
    expect(chosenCover(write("src/a.ts"), undefined)).toEqual(Either.right(write("src/a.ts")))
    expect(chosenCover({ tool: "shell", commands: ["git status *", "npm test *"] }, { commands: ["npm test *"] })).toEqual(
      Either.right({ tool: "shell", commands: ["npm test *"] })
    )
  })

  it("wider, another folder, the whole workspace, a new prefix or the wrong kind is refused", () => {
    const refused = (cover: AnswerCover, chosen: Parameters<typeof chosenCover>[1]) => Either.isLeft(chosenCover(cover, chosen))
    expect(refused(write("src/a.ts"), { paths: ["**"] })).toBe(true)
    expect(refused(write("src/a.ts"), { paths: ["src/a.ts", "**"] })).toBe(true)
    expect(refused(write("src/a.ts"), { paths: ["lib/**"] })).toBe(true)
    expect(refused(write("src/a.ts"), { paths: ["src/*.ts"] })).toBe(true)
    expect(refused(write("a.txt"), { paths: ["**"] })).toBe(true)
    expect(refused(write("/etc/hosts"), { paths: ["/etc/*"] })).toBe(true)
    expect(refused({ tool: "shell", commands: ["git status *"] }, { commands: ["git *"] })).toBe(true)
    expect(refused({ tool: "shell", commands: ["git status *"] }, { paths: ["**"] })).toBe(true)
    expect(refused(write("src/a.ts"), { commands: ["rm *"] })).toBe(true)
    expect(refused(write("src/a.ts"), { paths: ["src/*"], commands: ["ls"] })).toBe(true)
    expect(refused({ tool: "mcp__x__y", input: "{}" }, { paths: ["*"] })).toBe(true)
  })
})
