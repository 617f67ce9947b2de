import { afterAll, describe, expect, it } from "@effect/vitest"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { atPrefix, atSuggestions } from "../../../src/cli/interactive/completion.js"
import { filterChoices } from "../../../src/cli/interactive/choice-list.js"
import { latestHere, matchSession } from "../../../src/cli/interactive/session-choice.js"
import type { SessionListItem } from "../../../src/domain/host.js"
import { makeTemp } from "../../support/temp-dirs.js"

const temps = makeTemp()
afterAll(temps.cleanup)

const item = (sessionId: string, cwd: string, extra: Partial<SessionListItem> = {}): SessionListItem => ({
  sessionId,
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
  lastSequence: 3,
  running: false,
  status: "idle",
  archived: false,
  cwd,
  ...extra
})

describe("which session to open", () => {
  // Newest activity first, as the host lists them.
  const items = [item("ses_child", "/w", { parentSessionId: "ses_abc1" }), item("ses_old", "/w", { archived: true }), item("ses_other", "/elsewhere"), item("ses_abc1", "/w"), item("ses_abd2", "/w")]

  it("--continue: this workspace's latest top-level session that is not archived", () => {
    expect(latestHere(items, "/w")).toBe("ses_abc1")
    expect(latestHere(items, "/w/")).toBe("ses_abc1")
    expect(latestHere(items, "/nowhere")).toBeUndefined()
  })

  it("-r ID: the whole id, or the only one it starts (with or without ses_)", () => {
    expect(matchSession(items, "ses_other")).toEqual({ _tag: "One", sessionId: "ses_other" })
    expect(matchSession(items, "abc")).toEqual({ _tag: "One", sessionId: "ses_abc1" })
    expect(matchSession(items, "ses_ab")).toEqual({ _tag: "Many", sessionIds: ["ses_abc1", "ses_abd2"] })
    expect(matchSession(items, "zzz")).toEqual({ _tag: "None" })
  })

  it("the picker's filter keeps the choices holding every word typed", () => {
    const choices = [
      { label: "fix the parser", detail: "ses_1 · idle", value: 1 },
      { label: "write docs", detail: "ses_2 · idle", value: 2 }
    ]
    expect(filterChoices(choices, "").map((c) => c.value)).toEqual([1, 2])
    expect(filterChoices(choices, "PARSER fix").map((c) => c.value)).toEqual([1])
    expect(filterChoices(choices, "ses_2").map((c) => c.value)).toEqual([2])
    expect(filterChoices(choices, "nothing")).toEqual([])
  })
})

describe("@path completion", () => {
  it("finds the @path before the cursor", () => {
    expect(atPrefix("look at @src/a")).toBe("@src/a")
    expect(atPrefix("@")).toBe("@")
    expect(atPrefix("mail me@example")).toBeUndefined()
    expect(atPrefix("done @a.txt ")).toBeUndefined()
  })

  it("lists the folder it points into: folders first, hidden ones only when asked for, never .git or node_modules", () => {
    const cwd = temps.dir("tui-at-")
    mkdirSync(join(cwd, "src"))
    mkdirSync(join(cwd, "node_modules"))
    mkdirSync(join(cwd, ".git"))
    writeFileSync(join(cwd, "notes.md"), "")
    writeFileSync(join(cwd, ".env"), "")
    writeFileSync(join(cwd, "src", "main.ts"), "")
    expect(atSuggestions(cwd, "@").map((s) => s.value)).toEqual(["@src/", "@notes.md"])
    expect(atSuggestions(cwd, "@.").map((s) => s.value)).toEqual(["@.env"])
    expect(atSuggestions(cwd, "@src/m").map((s) => s.value)).toEqual(["@src/main.ts"])
    expect(atSuggestions(cwd, "@missing/")).toEqual([])
  })
})
