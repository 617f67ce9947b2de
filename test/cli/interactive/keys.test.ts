import { describe, expect, it } from "@effect/vitest"
import { keyAction, nextMode, onInterrupt, QUIT_WINDOW_MS } from "../../../src/cli/interactive/keys.js"
import { knownCommands, parseTyped } from "../../../src/cli/interactive/slash.js"

const idle = { running: false, completing: false }
const running = { running: true, completing: false }

describe("the session's keys", () => {
  it("Ctrl-C, Esc (only while a turn runs and no completion list is open), Shift+Tab, Ctrl+S, Alt+Enter (only while a turn runs), Ctrl+O, Ctrl+X; anything else is the editor's", () => {
    expect(keyAction("\x03", idle)).toBe("interrupt")
    expect(keyAction("\x1b", running)).toBe("cancelTurn")
    expect(keyAction("\x1b", idle)).toBe("none")
    expect(keyAction("\x1b", { running: true, completing: true })).toBe("none")
    expect(keyAction("\x1b[Z", idle)).toBe("cycleMode")
    expect(keyAction("\x13", running)).toBe("steer")
    expect(keyAction("\x0f", idle)).toBe("expandDetail")
    expect(keyAction("\x18", running)).toBe("detach")
    // The Kitty keyboard protocol's Ctrl+X (pi-tui turns it on where the terminal offers it).
    expect(keyAction("\x1b[120;5u", running)).toBe("detach")
    // The editor's own control keys stay the editor's.
    for (const data of ["\x01", "\x02", "\x04", "\x05", "\x06", "\x0b", "\x15", "\x17", "\x19"]) expect(keyAction(data, running), JSON.stringify(data)).toBe("none")
    expect(keyAction("\x1b\r", running)).toBe("steer")
    expect(keyAction("\x1b\r", idle)).toBe("none")
    for (const data of ["a", "\r", "\x1b[A", "/"]) expect(keyAction(data, running), JSON.stringify(data)).toBe("none")
  })

  it("Ctrl-C clears the editor; on an empty one it warns, and a second press within the window quits", () => {
    expect(onInterrupt({ now: 1000, lastAt: undefined, editorEmpty: false })).toBe("clearEditor")
    expect(onInterrupt({ now: 1000, lastAt: undefined, editorEmpty: true })).toBe("warn")
    expect(onInterrupt({ now: 1000 + QUIT_WINDOW_MS, lastAt: 1000, editorEmpty: true })).toBe("quit")
    expect(onInterrupt({ now: 1001 + QUIT_WINDOW_MS, lastAt: 1000, editorEmpty: true })).toBe("warn")
  })

  it("Shift+Tab goes default → accept-edits → plan → default, and never to bypass", () => {
    expect(nextMode("default")).toBe("accept-edits")
    expect(nextMode("accept-edits")).toBe("plan")
    expect(nextMode("plan")).toBe("default")
    expect(nextMode("bypass")).toBe("default")
  })
})

describe("what a typed line is", () => {
  const known = ["help", "model", "mode", "review"]
  it("a known command with its arguments; an unknown one with the nearest name; anything else a prompt", () => {
    expect(parseTyped("/model openai/gpt-4o", known)).toEqual({ _tag: "Command", name: "model", args: "openai/gpt-4o" })
    expect(parseTyped("  /HELP  ", known)).toEqual({ _tag: "Command", name: "help", args: "" })
    expect(parseTyped("/review the\nwhole thing", known)).toEqual({ _tag: "Command", name: "review", args: "the\nwhole thing" })
    expect(parseTyped("/modle x", known)).toEqual({ _tag: "Unknown", name: "modle", suggestion: "model" })
    expect(parseTyped("/zzzzzz", known)).toEqual({ _tag: "Unknown", name: "zzzzzz", suggestion: undefined })
    for (const text of ["hello", "/etc/hosts is odd", "/ alone", "a /help in the middle"]) expect(parseTyped(text, known), text).toEqual({ _tag: "Prompt" })
  })
})

describe("the commands the session knows", () => {
  it("its own first; a command file named like one is left out; a file's words are made safe for the completion list", () => {
    const file = (name: string, description: string) => ({ name, description, source: "project" as const, path: `/w/${name}.md` })
    const known = knownCommands([file("help", "mine"), file("review", "Bell\x07 and \x1b[31mred")])
    expect(known.filter((command) => command.name === "help")).toEqual([expect.objectContaining({ description: "Keys and commands" })])
    expect(known.find((command) => command.name === "review")?.description).toBe("Bell^G and ^[[31mred")
  })
})
