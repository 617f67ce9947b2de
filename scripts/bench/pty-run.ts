import * as pty from "@lydell/node-pty"
import xterm from "@xterm/headless"
import * as fs from "node:fs"

/**
 * The built CLI on a real pseudo-terminal (node-pty), as a person runs it, for the interactive
 * session's bench. Everything it writes is kept with the moment this process read it (the
 * clock of `performance.now()`, and `epochNow()` to compare with another process's), so a
 * figure is "when did this appear on the terminal", never "when did the program think it drew
 * it". Nothing here parses escapes: the screen a person would see is rebuilt afterwards by
 * `screenOf` (a headless xterm), off the measured path.
 */

/** Milliseconds since the epoch with sub-millisecond precision: comparable across processes on one machine. */
export const epochNow = () => performance.timeOrigin + performance.now()

export interface Found {
  readonly index: number
  readonly end: number
  readonly at: number
  readonly epoch: number
}

export interface PtyRun {
  readonly pid: number
  /** `performance.now()` just before the spawn. */
  readonly startedAt: number
  /** Everything written to the terminal so far. */
  readonly output: () => string
  /** Bytes written to the terminal so far (UTF-8, escapes included). */
  readonly bytes: () => number
  /**
   * Resolves once the output holds `needle` at or after `from`: where (`index`, `end` just
   * after it), and when the read that brought its last character came (`at` on this process's
   * `performance.now()`, `epoch` from `epochNow()`), even when it came before the call; rejects
   * after `timeoutMs` or when the program exits first.
   */
  readonly waitForText: (
    needle: string,
    options?: { readonly from?: number; readonly timeoutMs?: number; readonly label?: string }
  ) => Promise<Found>
  /** Resolves once nothing was written for `quietMs`. */
  readonly quiet: (quietMs: number, timeoutMs?: number) => Promise<void>
  readonly type: (text: string) => void
  /** From /proc: the peak RSS so far (VmHWM, kept by the kernel) and the RSS now (VmRSS). */
  readonly peakRssBytes: () => number
  readonly rssBytes: () => number
  /** User plus system CPU time of the process so far, from /proc (in clock ticks: 10 ms steps). */
  readonly cpuSeconds: () => number
  /** Ctrl-C twice (the session's own way out), then SIGKILL if it has not exited within 10 s; resolves with the exit code. */
  readonly quit: () => Promise<number>
}

/** utime + stime of /proc/<pid>/stat (fields 14 and 15, counted after the command's closing parenthesis). */
const cpuTime = (pid: number): number => {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  // Field 3 is the first after the command: utime is field 14, stime 15.
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND
}

/** USER_HZ: 100 on Linux for every architecture Node runs on. */
const TICKS_PER_SECOND = 100

const memoryField = (pid: number, field: "VmHWM" | "VmRSS"): number => {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8")
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(status)
  if (match?.[1] === undefined) throw new Error(`no ${field} in /proc/${pid}/status`)
  return Number(match[1]) * 1024
}

/** Characters kept from the end of the output: the longest text `waitForText` looks for. */
const RECENT = 256

export const runOnPty = (
  args: ReadonlyArray<string>,
  options: { readonly cwd: string; readonly env: Readonly<Record<string, string>>; readonly cols: number; readonly rows: number }
): PtyRun => {
  const startedAt = performance.now()
  const child = pty.spawn(process.execPath, [...args], {
    name: "xterm-256color",
    cols: options.cols,
    rows: options.rows,
    cwd: options.cwd,
    env: { TERM: "xterm-256color", ...options.env }
  })
  const chunks: Array<string> = []
  /** Each read: where its text starts in the output, and when it came. */
  const reads: Array<{ readonly offset: number; readonly at: number; readonly epoch: number }> = []
  let length = 0
  let bytes = 0
  let lastDataAt = startedAt
  let exitCode: number | undefined
  /** Called after each read with its text and the text just before it (RECENT characters). */
  const listeners = new Set<(data: string, before: string) => void>()
  let recent = ""
  const exited = new Promise<number>((resolve) =>
    child.onExit(({ exitCode: code }) => {
      exitCode = code
      resolve(code)
      for (const listener of listeners) listener("", recent)
    })
  )
  child.onData((data) => {
    lastDataAt = performance.now()
    reads.push({ offset: length, at: lastDataAt, epoch: epochNow() })
    chunks.push(data)
    length += data.length
    bytes += Buffer.byteLength(data, "utf8")
    const before = recent
    recent = (recent + data).slice(-RECENT)
    for (const listener of listeners) listener(data, before)
  })
  let joined = ""
  let joinedChunks = 0
  const output = () => {
    if (joinedChunks !== chunks.length) {
      joined += chunks.slice(joinedChunks).join("")
      joinedChunks = chunks.length
    }
    return joined
  }

  /** When the read that brought the character at `offset` came. */
  const arrivalOf = (offset: number) => {
    let low = 0
    let high = reads.length - 1
    while (low < high) {
      const middle = (low + high + 1) >> 1
      if ((reads[middle]?.offset ?? 0) <= offset) low = middle
      else high = middle - 1
    }
    const read = reads[low]
    if (read === undefined) throw new Error(`no read holds offset ${offset}`)
    return read
  }

  const waitForText: PtyRun["waitForText"] = (needle, waitOptions = {}) =>
    new Promise((resolve, reject) => {
      if (needle.length > RECENT) throw new Error(`waitForText looks for at most ${RECENT} characters`)
      const label = waitOptions.label ?? JSON.stringify(needle)
      const timeoutMs = waitOptions.timeoutMs ?? 60_000
      const found = (index: number) => {
        const end = index + needle.length
        const read = arrivalOf(end - 1)
        done()
        resolve({ index, end, at: read.at, epoch: read.epoch })
      }
      const fail = (why: string) => {
        done()
        void tailOf(output(), options.cols, options.rows).then((screen) => reject(new Error(`${why}; the terminal showed:\n${screen}`)))
      }
      const timer = setTimeout(() => fail(`${label} did not appear in ${timeoutMs} ms`), timeoutMs)
      // Each read is searched with the few characters before it a match could start in.
      const check = (data: string, before: string) => {
        const searched = before.slice(Math.max(0, before.length - needle.length + 1)) + data
        const base = length - searched.length
        const at = searched.indexOf(needle, Math.max(0, (waitOptions.from ?? 0) - base))
        if (at !== -1) found(base + at)
        else if (exitCode !== undefined) fail(`the program exited (${exitCode}) before ${label} appeared`)
      }
      const done = () => {
        clearTimeout(timer)
        listeners.delete(check)
      }
      const already = output().indexOf(needle, waitOptions.from ?? 0)
      if (already !== -1) return found(already)
      listeners.add(check)
    })

  const quiet = (quietMs: number, timeoutMs = 60_000) =>
    new Promise<void>((resolve, reject) => {
      const deadline = performance.now() + timeoutMs
      const tick = () => {
        const now = performance.now()
        if (now - lastDataAt >= quietMs) return resolve()
        if (now > deadline) return reject(new Error(`the terminal never went quiet for ${quietMs} ms`))
        setTimeout(tick, Math.max(1, quietMs - (now - lastDataAt)))
      }
      tick()
    })

  const quit = async () => {
    if (exitCode !== undefined) return exitCode
    child.write("\x03")
    child.write("\x03")
    const forced = setTimeout(() => child.kill("SIGKILL"), 10_000)
    const code = await exited
    clearTimeout(forced)
    return code
  }

  return {
    pid: child.pid,
    startedAt,
    output,
    bytes: () => bytes,
    waitForText,
    quiet,
    type: (text) => child.write(text),
    peakRssBytes: () => memoryField(child.pid, "VmHWM"),
    rssBytes: () => memoryField(child.pid, "VmRSS"),
    cpuSeconds: () => cpuTime(child.pid),
    quit
  }
}

/** The screen (and scrollback) a terminal of this size shows after `output`: for checks and error messages. */
export const screenOf = (output: string, cols: number, rows: number): Promise<string> =>
  new Promise((resolve) => {
    const term = new xterm.Terminal({ cols, rows, scrollback: 100_000, allowProposedApi: true })
    term.write(output, () => {
      const lines = Array.from({ length: term.buffer.active.length }, (_, i) => term.buffer.active.getLine(i)?.translateToString(true) ?? "")
      term.dispose()
      resolve(lines.join("\n").trimEnd())
    })
  })

/** The last rows of what the terminal shows, to say what was there when something did not appear. */
const tailOf = async (output: string, cols: number, rows: number) => (await screenOf(output, cols, rows)).split("\n").slice(-rows).join("\n")
