import { describe, expect, it } from "@effect/vitest"
import { Effect, Schedule, Stream } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll } from "vitest"
import { notificationsOn } from "../../src/app/notification-settings.js"
import { type QuestionChange, questionChange, watchWaiting, waitingNotice } from "../../src/host/waiting-notice.js"
import { desktopEnvironment, plain } from "../../src/layers/desktop-notifier.js"
import type { Notice } from "../../src/services/Notifier.js"
import { makeTemp } from "../support/temp-dirs.js"

const temp = makeTemp()
afterAll(temp.cleanup)

const asked = (sessionId: string, summary = "write out.txt"): QuestionChange => ({ _tag: "Asked", sessionId, tool: "write_file", summary })
const settled = (sessionId: string): QuestionChange => ({ _tag: "Settled", sessionId })

/** Waits (polling, bounded) until `test` holds: the notices go out in fibers of their own. */
const until = (test: () => boolean) =>
  Effect.sync(test).pipe(
    Effect.repeat({ schedule: Schedule.spaced("1 millis"), until: (held) => held }),
    Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error("never held") })
  )

/**
 * Runs the watch over `changes` with a fake notifier and waits for `expected` notices. The
 * checks that keep one from going out (followers, the switch) run before its fiber is started,
 * so when none is expected there is nothing to wait for.
 */
const noticesFor = (
  changes: ReadonlyArray<QuestionChange>,
  expected: number,
  options: { readonly followed?: ReadonlySet<string>; readonly enabled?: boolean } = {}
) =>
  Effect.gen(function* () {
    const told: Array<Notice> = []
    yield* watchWaiting({
      changes: Stream.fromIterable(changes),
      followers: (sessionId) => Effect.succeed(options.followed?.has(sessionId) === true ? 1 : 0),
      enabled: Effect.succeed(options.enabled ?? true),
      notify: (notice) => Effect.sync(() => told.push(notice))
    })
    yield* until(() => told.length >= expected)
    return told
  })

describe("the host's notice when a session nobody follows waits for an answer", () => {
  it.live("tells once per wait: questions asked while one waits make no more; a question after an answer does", () =>
    Effect.gen(function* () {
      const told = yield* noticesFor([asked("ses_a"), asked("ses_a", "another"), asked("ses_b", "run npm test"), settled("ses_a"), asked("ses_a", "third")], 3)
      expect(told.map((notice) => notice.body)).toEqual([
        "write_file: write out.txt (custom-agent attach ses_a)",
        "write_file: run npm test (custom-agent attach ses_b)",
        "write_file: third (custom-agent attach ses_a)"
      ])
    })
  )

  it.live("not for a session a client follows (its terminal rings), nor with notifications off", () =>
    Effect.gen(function* () {
      const changes = [asked("ses_a"), asked("ses_b")]
      expect((yield* noticesFor(changes, 1, { followed: new Set(["ses_a"]) })).map((notice) => notice.body)).toEqual(["write_file: write out.txt (custom-agent attach ses_b)"])
      expect(yield* noticesFor(changes, 0, { enabled: false })).toEqual([])
    })
  )

  it.live("a notifier that never answers holds up nothing: the watch goes on to the next session", () =>
    Effect.gen(function* () {
      const sent: Array<string> = []
      yield* watchWaiting({
        changes: Stream.fromIterable([asked("ses_a"), asked("ses_b")]),
        followers: () => Effect.succeed(0),
        enabled: Effect.succeed(true),
        notify: (notice) => Effect.zipRight(Effect.sync(() => sent.push(notice.body)), Effect.never)
      })
      yield* until(() => sent.length === 2)
    })
  )

  it("hears the host's frames: a question raised, answered, the turn's end", () => {
    const requested = questionChange("ses_a", {
      _tag: "Event",
      event: {
        id: "evt_1",
        schemaVersion: 1,
        sessionId: "ses_a",
        turnId: "turn_1",
        sequence: 5,
        timestamp: "2026-01-01T00:00:00.000Z",
        type: "permission.requested",
        payload: { toolCallId: "c1", tool: "bash", risk: "execute", summary: "npm test" }
      }
    })
    expect(requested).toEqual({ _tag: "Asked", sessionId: "ses_a", tool: "bash", summary: "npm test" })
    expect(questionChange("ses_a", { _tag: "Status", running: false })).toEqual(settled("ses_a"))
    expect(questionChange("ses_a", { _tag: "Status", running: true })).toBeUndefined()
    expect(questionChange("ses_a", { _tag: "KeepAlive" })).toBeUndefined()
  })

  it("says the question in one plain line: controls shown by name, long ones cut", () => {
    const notice = waitingNotice({ _tag: "Asked", sessionId: "ses_a", tool: "bash", summary: `evil\x1b]52;c;aGk=\x07\u202e${"x".repeat(200)}` })
    expect(notice.body).not.toMatch(/[\x00-\x1f\x7f\u202e]/)
    expect(notice.body).toContain("evil<U+001B>]52;c;aGk=<U+0007><U+202E>")
    expect(notice.body.length).toBeLessThan(160)
    // notify-send's markup is escaped: the text shows as it is.
    expect(plain("<b>bold</b> & <a href='x'>")).toBe("&lt;b&gt;bold&lt;/b&gt; &amp; &lt;a href='x'&gt;")
  })

  it("notify-send gets the fixed allowlist and the desktop's bus and display, never a key or token", () => {
    const env = desktopEnvironment({
      PATH: "/usr/bin",
      HOME: "/home/u",
      XDG_RUNTIME_DIR: "/run/user/1",
      DBUS_SESSION_BUS_ADDRESS: "unix:path=/run/user/1/bus",
      DISPLAY: ":0",
      ANTHROPIC_API_KEY: "sk",
      CUSTOM_AGENT_TOKEN: "t",
      GITHUB_TOKEN: "g"
    })
    expect(Object.keys(env).sort()).toEqual(["DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "HOME", "PATH", "XDG_RUNTIME_DIR"])
  })

  it.effect("the switch: on unless settings.json says \"notifications\": false", () =>
    Effect.gen(function* () {
      const dir = temp.dir("notify-settings-")
      const file = join(dir, "settings.json")
      expect(yield* notificationsOn(file)).toBe(true)
      writeFileSync(file, JSON.stringify({ model: "scripted" }))
      expect(yield* notificationsOn(file)).toBe(true)
      writeFileSync(file, JSON.stringify({ notifications: false }))
      expect(yield* notificationsOn(file)).toBe(false)
    })
  )
})
