/**
 * The interactive session's first frame, drawn by the launcher (`bin/custom-agent.js`) before
 * the CLI's bundle loads (hundreds of ms): the header, an empty editor and a "starting…"
 * status, in the layout the session draws. Loaded on its own, so it imports nothing, and it
 * shows no content but the version and the workspace's path, made strictly safe here
 * (`printable`: every control character dropped), not by the project's sanitizer, which
 * loads with the bundle.
 *
 * While it is up it holds the terminal as the session will: raw mode (no echo, no line
 * editing), keys typed meanwhile kept for the session's editor. Ctrl-C quits as it would on a
 * plain terminal. It ends one of two ways: the session takes the screen over (`handOver`: the
 * frame erased in a synchronized-output block the session's own first frame closes, so
 * nothing flickers and scrollback holds one header), or anything else is written first (a
 * usage error, the trust question: `dismiss`, through the CLI's writers), which erases it and
 * gives the terminal back as it was.
 */
export interface EarlyFrame {
  /** Erases the frame and gives the terminal back (cooked mode, stdin paused); the keys typed are kept for `handOver`. */
  readonly dismiss: () => void
  /** For the session about to draw: erases the frame (if still up) inside an open synchronized-output block, and puts the keys typed back on stdin. */
  readonly handOver: () => void
}

/** What the frame needs of stdin (process.stdin is one). */
export interface FrameInput {
  readonly isTTY?: boolean
  setRawMode(raw: boolean): unknown
  on(event: "data", listener: (data: Buffer | string) => void): unknown
  removeListener(event: "data", listener: (data: Buffer | string) => void): unknown
  pause(): unknown
  resume(): unknown
  unshift(chunk: Buffer): void
}

/** What it needs of stdout (process.stdout is one). */
export interface FrameOutput {
  readonly isTTY?: boolean
  readonly columns: number
  readonly rows: number
  write(text: string): unknown
}

export interface EarlyFrameOptions {
  readonly version: string
  readonly cwd: string
  readonly stdin: FrameInput
  readonly stdout: FrameOutput
  readonly env: NodeJS.ProcessEnv
  /** Ctrl-C before the session took over: the process is interrupted as on a plain terminal. */
  readonly interrupt: () => void
  /** Registers what to do when the process exits with the frame still up (it erases it). */
  readonly onExit?: (erase: () => void) => void
}

/**
 * Every control, format and separator character, and every one that draws as nothing (the
 * domain's invisible set, `visible-text.ts`, which this module may not import; a test holds
 * them together): the frame shows none (a path may hold escapes).
 */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Default_Ignorable_Code_Point}\u2800\u{16FE4}]/gu

/** Strictly safe text: what could move the cursor, change a style or hide itself is dropped. */
export const printable = (text: string): string => text.replace(UNSAFE, "")

/**
 * `text` cut to fit `width` columns with `…`. Every character past ASCII is counted as two
 * columns (a wide one takes two): the frame may be narrower than needed, never wider, so it
 * never wraps and its height is known.
 */
export const fitColumns = (text: string, width: number): string => {
  const chars = [...text]
  const columnsOf = (char: string) => (char.charCodeAt(0) < 0x80 ? 1 : 2)
  if (chars.reduce((sum, char) => sum + columnsOf(char), 0) <= width) return text
  let used = 0
  let out = ""
  for (const char of chars) {
    // One column left for the `…`.
    if (used + columnsOf(char) > width - 1) break
    out += char
    used += columnsOf(char)
  }
  return `${out}…`
}

const CSI = "\x1b["
const BEGIN_SYNC = `${CSI}?2026h`
const END_SYNC = `${CSI}?2026l`
const HIDE_CURSOR = `${CSI}?25l`
/**
 * Bracketed paste, on with the frame: a paste while it is up comes wrapped in markers and
 * reaches the session's editor as one paste, not as typed keys whose line ends would each be
 * an Enter that sends a prompt. The session (pi-tui) keeps it on; a dismissed frame turns it off.
 */
const PASTE_ON = `${CSI}?2004h`
const PASTE_OFF = `${CSI}?2004l`
const PASTE_START = Buffer.from(`${CSI}200~`)
const PASTE_END = Buffer.from(`${CSI}201~`)
const SHOW_CURSOR = `${CSI}?25h`
const ETX = 0x03

/** The lines of the frame, each narrower than `columns`. */
export const frameLines = (options: { readonly version: string; readonly cwd: string; readonly columns: number; readonly color: boolean }): ReadonlyArray<string> => {
  const { columns, color } = options
  const paint = (open: number, close: number) => (text: string) => (color ? `${CSI}${open}m${text}${CSI}${close}m` : text)
  const bold = paint(1, 22)
  const dim = paint(2, 22)
  const gray = paint(90, 39)
  // The session's header says more (a server, the local host) once it draws.
  const where = `${options.version} · ${printable(options.cwd)}`
  const name = "custom-agent"
  const header = columns > name.length + 2 ? `${bold(name)} ${dim(fitColumns(where, columns - name.length - 1))}` : bold(fitColumns(name, columns))
  const border = gray("─".repeat(columns))
  return [header, border, color ? `${CSI}7m ${CSI}0m` : " ", border, dim("starting…"), ""]
}

/**
 * Draws the frame on a terminal and holds it, or does nothing (undefined) where the session
 * would not run or not fit: stdin or stdout not a terminal, a terminal too small.
 */
export const drawEarlyFrame = (options: EarlyFrameOptions): EarlyFrame | undefined => {
  const { stdin, stdout } = options
  const columns = stdout.columns
  const rows = stdout.rows
  if (stdin.isTTY !== true || stdout.isTTY !== true || !(columns >= 20) || !(rows >= 10)) return undefined
  const color = options.env["NO_COLOR"] === undefined
  const lines = frameLines({ version: options.version, cwd: options.cwd, columns, color })
  // What each line takes (the borders fill the width): if the terminal narrows meanwhile and
  // rewraps them, the frame takes more rows.
  const widths = lines.map((line, i) => (i === 1 || i === 3 ? columns : Math.min(columns, line.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "").length)))
  // The cursor ends on the last row: this many rows above it is the frame's first.
  const above = () => widths.reduce((rows, width) => rows + Math.max(1, Math.ceil(width / Math.max(1, stdout.columns))), 0) - 1
  // A terminal's writes are synchronous: the frame is on it before the bundle starts loading.
  const write = (text: string) => {
    stdout.write(text)
  }
  write(`${BEGIN_SYNC}${HIDE_CURSOR}${PASTE_ON}${lines.join("\r\n")}${END_SYNC}`)

  const typed: Array<Buffer> = []
  let shown = true
  let holding = true
  let pasting = false
  /** Where a Ctrl-C typed (not pasted) is in `bytes`, following the paste markers across chunks; -1 when none. */
  const interruptIn = (bytes: Buffer): number => {
    for (let i = 0; i < bytes.length; i++) {
      if (bytes[i] === 0x1b) {
        if (bytes.subarray(i, i + PASTE_START.length).equals(PASTE_START)) pasting = true
        else if (bytes.subarray(i, i + PASTE_END.length).equals(PASTE_END)) pasting = false
      } else if (bytes[i] === ETX && !pasting) return i
    }
    return -1
  }
  const onData = (data: Buffer | string) => {
    const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data
    const interrupt = interruptIn(bytes)
    if (interrupt !== -1) {
      typed.push(bytes.subarray(0, interrupt))
      dismiss()
      options.interrupt()
      return
    }
    typed.push(bytes)
  }
  const erase = () => `\r${CSI}${above()}A${CSI}J`
  const release = () => {
    if (!holding) return
    holding = false
    stdin.removeListener("data", onData)
    stdin.pause()
    stdin.setRawMode(false)
  }
  const dismiss = () => {
    release()
    if (!shown) return
    shown = false
    write(`${erase()}${PASTE_OFF}${SHOW_CURSOR}`)
  }
  const onExit = () => dismiss()
  options.onExit?.(onExit)

  stdin.setRawMode(true)
  stdin.on("data", onData)
  stdin.resume()

  return {
    dismiss,
    handOver: () => {
      release()
      // Left open: the session's first frame closes it, so the erased frame is never seen alone.
      if (shown) {
        shown = false
        write(`${BEGIN_SYNC}${erase()}`)
      }
      const kept = Buffer.concat(typed)
      typed.length = 0
      if (kept.length > 0) stdin.unshift(kept)
    }
  }
}
