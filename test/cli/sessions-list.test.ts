import { afterAll, describe, expect, it } from "@effect/vitest"
import { realpathSync } from "node:fs"
import type { SessionListItem } from "../../src/domain/host.js"
import { relativeTime } from "../../src/domain/relative-time.js"
import { listedItems, sessionListing } from "../../src/cli/session-list-view.js"
import { runCli } from "../support/cli.js"
import { makeTemp } from "../support/temp-dirs.js"

const temps = makeTemp()
afterAll(temps.cleanup)

const NOW = Date.parse("2026-12-03T12:00:00.000Z")

const item = (sessionId: string, cwd: string, minutesAgo: number, extra: Partial<SessionListItem> = {}): SessionListItem => ({
  sessionId,
  createdAt: "2026-12-01T00:00:00.000Z",
  updatedAt: new Date(NOW - minutesAgo * 60_000).toISOString(),
  lastSequence: 10,
  running: false,
  status: "idle",
  archived: false,
  cwd,
  title: `work in ${sessionId}`,
  ...extra
})

const view = { all: false, limit: 20, workspace: "/home/me/app", width: 80, now: NOW, home: "/home/me" }

describe("sessions list view", () => {
  it("shows this workspace's live sessions, each line within 80 columns, and counts what it left out", () => {
    const items = [
      item("ses_aaaaaaaaaaaaaaaaaaaaaaa1", "/home/me/app", 2, { title: "a very long title ".repeat(10), status: "running", running: true }),
      item("ses_aaaaaaaaaaaaaaaaaaaaaaa2", "/home/me/other", 5),
      item("ses_aaaaaaaaaaaaaaaaaaaaaaa3", "/home/me/app/packages/web", 90, { status: "interrupted" }),
      item("ses_aaaaaaaaaaaaaaaaaaaaaaa4", "/home/me/app", 3000, { archived: true })
    ]
    const listing = sessionListing(items, view)
    const lines = listing.text.text.trimEnd().split("\n")
    expect(lines[0]).toMatch(/^SESSION +STATUS +UPDATED +TITLE$/)
    expect(lines.slice(1).map((line) => line.split(/ {2,}/).slice(0, 3))).toEqual([
      ["ses_aaaaaaaaaaaaaaaaaaaaaaa1", "running", "2 min ago"],
      ["ses_aaaaaaaaaaaaaaaaaaaaaaa3", "interrupted", "1 h ago"]
    ])
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(80)
    expect(lines[1]).toMatch(/…$/)
    expect(listing.hidden).toEqual({ elsewhere: 1, archived: 1, beyondLimit: 0 })
  })

  it("--all groups every workspace under its path, this one first, archived ones marked", () => {
    const items = [
      item("ses_b1", "/home/me/other", 1),
      item("ses_b2", "/home/me/app", 4000, { archived: true }),
      item("ses_b3", "/srv/x", 20_000)
    ]
    const lines = sessionListing(items, { ...view, all: true }).text.text.trimEnd().split("\n")
    expect(lines).toEqual([
      expect.stringMatching(/^ {2}SESSION/),
      "~/app (this workspace)",
      expect.stringMatching(/^ {2}ses_b2 +archived +2 days ago +work in ses_b2$/),
      "~/other",
      expect.stringMatching(/^ {2}ses_b1 +idle +1 min ago/),
      "/srv/x",
      expect.stringMatching(/^ {2}ses_b3 +idle +2026-11-19/)
    ])
  })

  it("--limit keeps the newest, a subagent stays under its parent, and --json lists the same sessions", () => {
    const items = [item("ses_c1", "/home/me/app", 1), item("ses_child", "/home/me/app", 2, { parentSessionId: "ses_c1" }), item("ses_c2", "/home/me/app", 3)]
    const limited = { ...view, limit: 2 }
    const listing = sessionListing(items, limited)
    expect(listing.text.text).toContain("└ ses_child")
    expect(listing.text.text).not.toContain("ses_c2")
    expect(listing.hidden.beyondLimit).toBe(1)
    expect(listedItems(items, limited).map((s) => s.sessionId)).toEqual(["ses_c1", "ses_child"])
  })

  it("a question waiting says waiting, a last turn that failed says failed", () => {
    const text = sessionListing(
      [
        item("ses_e1", "/home/me/app", 1, { status: "running", running: true, waitingQuestions: 1 }),
        item("ses_e2", "/home/me/app", 2, { lastStopReason: "error" }),
        item("ses_e3", "/home/me/app", 3, { lastStopReason: "cancelled" })
      ],
      view
    ).text.text
    expect(text).toMatch(/ses_e1 +waiting/)
    expect(text).toMatch(/ses_e2 +failed/)
    expect(text).toMatch(/ses_e3 +idle/)
  })

  it("a title's controls are shown, never obeyed, and cannot forge a row", () => {
    const text = sessionListing([item("ses_d1", "/home/me/app", 1, { title: "ok\nses_forged  idle\x1b[2J" })], view).text.text
    expect(text).not.toContain("\x1b")
    expect(text.trimEnd().split("\n")).toHaveLength(2)
    expect(text).toContain("^J")
  })

  it("relative times: just now, minutes, hours, yesterday, days, then the date; a future time is now", () => {
    const ago = (ms: number) => relativeTime(new Date(NOW - ms).toISOString(), NOW)
    expect([ago(5_000), ago(120_000), ago(3 * 3600_000), ago(30 * 3600_000), ago(3 * 86400_000), ago(-60_000)]).toEqual([
      "just now",
      "2 min ago",
      "3 h ago",
      "yesterday",
      "3 days ago",
      "just now"
    ])
    expect(ago(30 * 86400_000)).toBe("2026-11-03")
  })
})

describe("sessions list, rename and archive through the built CLI", { timeout: 120_000 }, () => {
  it("lists this workspace's sessions with their status; rename and archive change the list; --all, --limit and --json", async () => {
    const home = temps.dir("list-home-")
    const env = { CUSTOM_AGENT_HOME: home, CUSTOM_AGENT_CONFIG_HOME: temps.dir("list-config-") }
    const app = realpathSync(temps.dir("list-app-"))
    const other = realpathSync(temps.dir("list-other-"))
    for (const [prompt, cwd] of [["first in app", app], ["in the other one", other], ["second in app", app]] as const) {
      expect((await runCli(["run", prompt], { env, cwd })).code).toBe(0)
    }
    const listed = await runCli(["sessions", "list"], { env, cwd: app })
    expect(listed.code).toBe(0)
    const lines = listed.stdout.trimEnd().split("\n")
    expect(lines[0]).toMatch(/^SESSION +STATUS +UPDATED +TITLE$/)
    expect(lines.slice(1).map((line) => line.split(/ {2,}/).slice(1))).toEqual([
      ["idle", "just now", "second in app"],
      ["idle", "just now", "first in app"]
    ])
    expect(listed.stderr).toContain("not shown: 1 in other workspaces (--all)")
    const ids = lines.slice(1).map((line) => line.split(" ")[0] ?? "")

    const json = await runCli(["sessions", "list", "--json", "--all"], { env, cwd: app })
    const items: ReadonlyArray<SessionListItem> = JSON.parse(json.stdout)
    expect(items.map((s) => [s.title, s.status, s.cwd])).toEqual([
      ["second in app", "idle", app],
      ["first in app", "idle", app],
      ["in the other one", "idle", other]
    ])

    const renamed = await runCli(["sessions", "rename", ids[1] ?? "", "The first one"], { env, cwd: app })
    expect(renamed).toMatchObject({ code: 0, stdout: `renamed ${ids[1]}\n` })
    const blank = await runCli(["sessions", "rename", ids[1] ?? "", "   "], { env, cwd: app })
    expect(blank.code).toBe(2)
    expect(blank.stderr).toContain("a title must not be blank")

    expect((await runCli(["sessions", "archive", ids[0] ?? ""], { env, cwd: app })).stdout).toBe(`archived ${ids[0]}\n`)
    const after = await runCli(["sessions", "list", "--limit", "5"], { env, cwd: app })
    expect(after.stdout).toContain("The first one")
    expect(after.stdout).not.toContain(ids[0])
    expect(after.stderr).toContain("1 archived (--all)")
    const all = await runCli(["sessions", "list", "--all"], { env, cwd: app })
    expect(all.stdout).toMatch(new RegExp(`${ids[0]} +archived`))
    expect(all.stdout).toContain("(this workspace)")
    expect(all.stdout).toContain(other)

    expect((await runCli(["sessions", "archive", "--undo", ids[0] ?? ""], { env, cwd: app })).code).toBe(0)
    const limited = await runCli(["sessions", "list", "--limit", "1"], { env, cwd: app })
    expect(limited.stdout.trimEnd().split("\n")).toHaveLength(2)
    expect(limited.stderr).toContain("1 older (--limit 2)")

    const unknown = await runCli(["sessions", "archive", "ses_0000000000000000000000"], { env, cwd: app })
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain("no session ses_0000000000000000000000")
  })
})

describe("sessions delete through the built CLI", { timeout: 120_000 }, () => {
  it("asks for --yes when no one can answer, deletes for good with it, and names a session that is not there", async () => {
    const env = { CUSTOM_AGENT_HOME: temps.dir("delete-home-"), CUSTOM_AGENT_CONFIG_HOME: temps.dir("delete-config-") }
    const app = realpathSync(temps.dir("delete-app-"))
    for (const prompt of ["keep this one", "drop this one"]) expect((await runCli(["run", prompt], { env, cwd: app })).code).toBe(0)
    const items: ReadonlyArray<SessionListItem> = JSON.parse((await runCli(["sessions", "list", "--json"], { env, cwd: app })).stdout)
    const drop = items.find((item) => item.title === "drop this one")?.sessionId ?? ""

    // stdin is a pipe here: nobody to ask, so nothing happens without --yes.
    const unasked = await runCli(["sessions", "delete", drop], { env, cwd: app })
    expect(unasked.code).toBe(2)
    expect(unasked.stderr).toContain("cannot be undone: pass --yes")
    expect((await runCli(["sessions", "show", drop], { env, cwd: app })).code).toBe(0)

    expect(await runCli(["sessions", "delete", "--yes", drop], { env, cwd: app })).toMatchObject({ code: 0, stdout: `deleted ${drop}\n` })
    const after: ReadonlyArray<SessionListItem> = JSON.parse((await runCli(["sessions", "list", "--json", "--all"], { env, cwd: app })).stdout)
    expect(after.map((item) => item.title)).toEqual(["keep this one"])
    const shown = await runCli(["sessions", "show", drop], { env, cwd: app })
    expect(shown.code).toBe(1)
    expect(shown.stderr).toContain(`no session ${drop}`)
    const again = await runCli(["sessions", "delete", "-y", drop], { env, cwd: app })
    expect(again.code).toBe(1)
    expect(again.stderr).toContain(`no session ${drop}`)
  })
})
