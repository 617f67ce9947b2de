import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { readdirSync, readFileSync } from "node:fs"
import { join, relative, resolve } from "node:path"
import { Writable } from "node:stream"
import { Effect } from "effect"
import { makeWriters, writeSync } from "../../src/cli/io.js"
import { dimAll, fromStyled, indentLines, joinText, jsonText, paint, sanitize, sanitizeInline, term, terminalString } from "../../src/cli/terminal-text.js"

/** What a terminal would obey or hide: C0 but newline and tab, DEL, C1, bidi and other format characters, separators, fillers. */
const forbidden = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\u115f\u1160\u3164\uffa0]|\u{e0001}|[\u{e0020}-\u{e007f}]/u

const hostile = [
  "\x1b[2K",
  "\r",
  "\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07",
  "\x9b2K",
  "\b",
  "\u202e",
  "\u2066",
  "\u200f",
  "\u061c",
  "\x7f",
  "\x00",
  "\u{e0041}"
]

/** Strings rich in what the sanitizer must catch, mixed with ordinary text. */
const nasty = fc
  .array(fc.oneof(fc.string({ unit: "binary" }), fc.constantFrom(...hostile), fc.integer({ min: 0, max: 0x10ffff }).map((code) => String.fromCodePoint(code))), { maxLength: 12 })
  .map((parts) => parts.join(""))

describe("sanitize", () => {
  it("shows each control visibly in caret or <U+XXXX> notation and keeps newlines and tabs", () => {
    expect(sanitize("npm test\r\x1b[2Ktouch X").text).toBe("npm test^M^[[2Ktouch X")
    expect(sanitize("a\x1b]52;c;aGk=\x07b").text).toBe("a^[]52;c;aGk=^Gb")
    expect(sanitize("\x9b31m red").text).toBe("<U+009B>31m red")
    expect(sanitize("rm -rf /\bx").text).toBe("rm -rf /^Hx")
    expect(sanitize("abc\u202edef\u2069").text).toBe("abc<U+202E>def<U+2069>")
    expect(sanitize("x\u{e0041}y").text).toBe("x<U+E0041>y")
    expect(sanitize("\x7f\x00").text).toBe("^?^@")
    expect(sanitize("one\n\ttwo").text).toBe("one\n\ttwo")
    expect(sanitize("ünïcødé · 漢字 — ok ✓").text).toBe("ünïcødé · 漢字 — ok ✓")
  })

  it("inline: newlines and tabs shown too, so a cell stays on its line", () => {
    expect(sanitizeInline("title\nFORGED ROW\tx").text).toBe("title^JFORGED ROW^Ix")
  })

  it("property: no output of sanitize holds a byte a terminal would obey or a bidi control", () => {
    fc.assert(
      fc.property(nasty, (text) => {
        const out = sanitize(text).text
        expect(out).not.toMatch(forbidden)
        expect(sanitizeInline(out).text).not.toMatch(/[\n\t]/)
        // Idempotent: sanitized text holds nothing left to show differently.
        expect(sanitize(out).text).toBe(out)
      }),
      { numRuns: 2000 }
    )
  })

  it("property: the written bytes of a sanitized string hold no byte 0x00-0x08, 0x0b-0x1f, 0x7f and no UTF-8 C1 (C2 80-9F)", () => {
    fc.assert(
      fc.property(nasty, (text) => {
        const bytes = Buffer.from(sanitize(text).text, "utf8")
        for (const [i, byte] of bytes.entries()) {
          expect(byte <= 0x08 || (byte >= 0x0b && byte <= 0x1f) || byte === 0x7f).toBe(false)
          if (byte === 0xc2) expect((bytes[i + 1] ?? 0) >= 0x80 && (bytes[i + 1] ?? 0) <= 0x9f).toBe(false)
        }
      }),
      { numRuns: 1000 }
    )
  })
})

describe("terminal text: the CLI's colours only, never content's", () => {
  const escapes = (text: string) => text.match(/\x1b\[[0-9;]*m/g) ?? []

  it("paint sanitizes what it colours; a template sanitizes its strings and keeps its terminal texts", () => {
    const red = paint(true, "31")
    expect(red("\x1b[2Kx").text).toBe("\x1b[31m^[[2Kx\x1b[0m")
    const line = term`${red("denied")} ${"\x1b]52;c;eA==\x07"} ${3}`
    expect(line.text).toBe("\x1b[31mdenied\x1b[0m ^[]52;c;eA==^G 3")
    expect(paint(false, "31")("x").text).toBe("x")
  })

  it("property: whatever content goes through paint, term, joinText, indentLines and dimAll, the only escapes are paint's", () => {
    fc.assert(
      fc.property(nasty, nasty, (a, b) => {
        const bold = paint(true, "1")
        const built = dimAll(true, indentLines(joinText([term`${bold(a)} · ${b}`, a, bold(b)], "\n"), paint(true, "2")("│ ")))
        const text = built.text
        // Every ESC starts one of the CLI's own SGR sequences.
        expect(text.replace(/\x1b\[(0|1|2)m/g, "")).not.toMatch(forbidden)
        expect(escapes(text).every((e) => ["\x1b[0m", "\x1b[1m", "\x1b[2m"].includes(e))).toBe(true)
      }),
      { numRuns: 500 }
    )
  })

  it("a terminal text made a plain string again (a forgotten term) is sanitized whole: its colours show, nothing is obeyed", () => {
    const plain = `${paint(true, "1")("x")}`
    expect(terminalString(plain)).toBe("^[[1mx^[[0m")
  })

  it("JSON: the same value, its unsafe characters as \\u escapes", () => {
    const value = { text: "a\x1b[2K\r\x9b\u202e\u{e0041}b", n: 1 }
    const json = jsonText(JSON.stringify(value, null, 2)).text
    expect(json).not.toMatch(forbidden)
    expect(JSON.parse(json)).toEqual(value)
    fc.assert(
      fc.property(nasty, (s) => {
        const out = jsonText(JSON.stringify({ s })).text
        expect(out).not.toMatch(forbidden)
        expect(JSON.parse(out)).toEqual({ s })
      }),
      { numRuns: 1000 }
    )
  })
})

describe("the CLI's writers sanitize what they are given", () => {
  const sink = () => {
    const written: Array<string> = []
    const stream = new Writable({
      decodeStrings: false,
      write(chunk: unknown, _encoding, callback) {
        written.push(String(chunk))
        callback()
      }
    })
    return { stream, written }
  }

  it.effect("stdout, stderr, segments and writeSync: a plain string's controls are shown, a terminal text's colours kept", () =>
    Effect.gen(function* () {
      const out = sink()
      const err = sink()
      const writers = makeWriters({ out: out.stream, err: err.stream })
      yield* writers.stdout("ok\x1b]52;c;eA==\x07\n")
      yield* writers.stderr(paint(true, "2")("\rhidden"))
      yield* writers.writeSegments([{ channel: "out", text: "\u202eabc" }])
      writeSync(out.stream, "y\bn")
      expect(out.written).toEqual(["ok^[]52;c;eA==^G\n", "<U+202E>abc", "y^Hn"])
      expect(err.written).toEqual(["\x1b[2m^Mhidden\x1b[0m"])
    })
  )
})

describe("one way to the terminal", () => {
  /** Every source file of the CLI, but the writers themselves. */
  const sources = (dir: string): ReadonlyArray<string> =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : []
    )

  /**
   * The only others that write to the terminal, and why that keeps the rule: the interactive
   * session's renderer extensions write what pi-tui itself would (lines its components made,
   * their content through safe-text.ts, and pi-tui's own control sequences, the bell among
   * them); the launcher's early frame draws before any module loads and holds one piece of
   * content, the workspace path, cleaned strictly (test/cli/early-frame.test.ts).
   */
  const renderers = ["early-frame.ts", "interactive/frame-watch.ts", "interactive/inserting-tui.ts"]

  it("no file of src/cli but io.ts (and the named renderers) writes to a stream or the console itself: everything printed passes the sanitizer", () => {
    const cli = resolve(import.meta.dirname, "../../src/cli")
    const writers = sources(cli)
      .filter((file) => file !== join(cli, "io.ts") && !renderers.includes(relative(cli, file)))
      .filter((file) => /\.write\(|\bconsole\.|Console\.(log|error|info|warn)\(/.test(readFileSync(file, "utf8")))
      .map((file) => relative(cli, file))
    expect(writers).toEqual([])
  })
})

describe("fromStyled: a renderer's output over sanitized content", () => {
  it("keeps its SGR styles with colour on, drops them with colour off, and shows every other control visibly", () => {
    const rendered = "\x1b[1;36mTitle\x1b[0m \x1b]8;;https://x\x1b\\link\x1b]8;;\x1b\\ \r\x9b2J\u202e"
    expect(fromStyled(rendered, true).text).toBe("\x1b[1;36mTitle\x1b[0m ^[]8;;https://x^[\\link^[]8;;^[\\ ^M<U+009B>2J<U+202E>")
    expect(fromStyled(rendered, false).text).toBe("Title ^[]8;;https://x^[\\link^[]8;;^[\\ ^M<U+009B>2J<U+202E>")
    fc.assert(
      fc.property(nasty, (text) => {
        expect(fromStyled(text, false).text).not.toMatch(forbidden)
      })
    )
  })
})
