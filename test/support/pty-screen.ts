import * as pty from "@lydell/node-pty"
import xterm from "@xterm/headless"
import { join } from "node:path"
import { assertBuilt, cliPath } from "./cli.js"

export interface PtyOptions {
  readonly cwd: string
  /** The agent's own directories (its data in it, its configuration in `config/`): the person's are never touched. */
  readonly home: string
  readonly cols: number
  readonly rows?: number
  readonly env?: Record<string, string | undefined>
}

/** Keys as a terminal sends them. */
export const keys = {
  enter: "\r",
  escape: "\x1b",
  ctrlC: "\x03",
  ctrlO: "\x0f",
  ctrlS: "\x13",
  shiftTab: "\x1b[Z",
  down: "\x1b[B",
  up: "\x1b[A",
  /** Shift+Enter as a terminal with modifyOtherKeys sends it (pi-tui turns that mode on when no Kitty reply comes). */
  shiftEnter: "\x1b[27;2;13~"
} as const

/**
 * The built CLI on a real pseudo-terminal, its screen kept by a headless xterm: what a person
 * would see, at a given size. Tests type into it and wait for the screen to show something;
 * they never sleep for a time.
 */
export const openOnPty = (args: ReadonlyArray<string>, options: PtyOptions) => {
  assertBuilt()
  const rows = options.rows ?? 30
  const term = new xterm.Terminal({ cols: options.cols, rows, scrollback: 10_000, allowProposedApi: true })
  const child = pty.spawn(process.execPath, [cliPath, ...args], {
    name: "xterm-256color",
    cols: options.cols,
    rows,
    cwd: options.cwd,
    env: {
      PATH: process.env["PATH"],
      HOME: process.env["HOME"],
      TERM: "xterm-256color",
      NO_COLOR: "1",
      CUSTOM_AGENT_HOME: options.home,
      CUSTOM_AGENT_CONFIG_HOME: join(options.home, "config"),
      CLAUDE_CONFIG_DIR: join(options.home, "claude"),
      ...options.env
    }
  })
  let raw = ""
  // The bells the terminal rang (a BEL on its own, not one ending an OSC sequence).
  let bells = 0
  term.onBell(() => bells++)
  let exited: { readonly code: number } | undefined
  const exit = new Promise<number>((resolve) =>
    child.onExit(({ exitCode }) => {
      exited = { code: exitCode }
      resolve(exitCode)
    })
  )
  child.onData((data) => {
    raw += data
    term.write(data)
  })
  // What the terminal answers to queries (cursor position, device attributes) goes back to the program.
  term.onData((data) => {
    if (exited === undefined) child.write(data)
  })

  const lineAt = (y: number) => term.buffer.active.getLine(y)?.translateToString(true) ?? ""
  /** The rows on the screen now. */
  const screen = (): string => Array.from({ length: term.rows }, (_, i) => lineAt(term.buffer.active.viewportY + i)).join("\n")
  /** Everything: the scrollback and the screen. */
  const all = (): string => Array.from({ length: term.buffer.active.length }, (_, i) => lineAt(i)).join("\n")

  /** Polls the screen (and scrollback) until `test` holds, or fails after `timeoutMs` showing what was there. */
  const waitFor = async (test: string | RegExp | ((text: string) => boolean), options: { readonly timeoutMs?: number; readonly where?: "screen" | "all" } = {}) => {
    const deadline = Date.now() + (options.timeoutMs ?? 20_000)
    const read = options.where === "screen" ? screen : all
    const holds = (text: string) => (typeof test === "string" ? text.includes(test) : test instanceof RegExp ? test.test(text) : test(text))
    for (;;) {
      // Whatever the pty gave is parsed first.
      await new Promise<void>((resolve) => term.write("", resolve))
      const text = read()
      if (holds(text)) return text
      if (Date.now() > deadline) throw new Error(`the screen never showed ${String(test)}:\n${text}`)
      if (exited !== undefined && !holds(read())) throw new Error(`the program exited (${exited.code}) before the screen showed ${String(test)}:\n${text}`)
      await new Promise<void>((resolve) => setTimeout(resolve, 25))
    }
  }

  return {
    screen,
    all,
    raw: () => raw,
    bells: () => bells,
    waitFor,
    type: (text: string) => child.write(text),
    resize: (cols: number, newRows = rows) => {
      term.resize(cols, newRows)
      child.resize(cols, newRows)
    },
    exit,
    kill: () => {
      if (exited === undefined) child.kill("SIGKILL")
    }
  }
}

export type PtySession = ReturnType<typeof openOnPty>
