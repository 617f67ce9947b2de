/** Longer lines are cut: minified files would otherwise fill the whole window with one line. */
export const MAX_LINE_CHARS = 2000

/**
 * Collects the numbered lines `offset..offset+limit-1` of a file, fed one line at a time,
 * stopping early at a byte budget; works the same for a string split in memory and a
 * file streamed from disk.
 */
export class LineWindow {
  readonly rows: Array<string> = []
  /** Lines fed so far. */
  seen = 0
  /** Set when the window filled up while the file had more lines. */
  stoppedBy: "lines" | "bytes" | undefined = undefined
  private bytes = 0

  constructor(
    readonly offset: number,
    readonly limit: number,
    readonly byteBudget: number
  ) {}

  /**
   * Feeds the next line; false once the window is full (that line was not taken). A line read
   * cut short comes with the length it had, without its `\r`.
   */
  push(line: string, length?: number): boolean {
    this.seen++
    if (this.seen < this.offset) return true
    if (this.rows.length >= this.limit) {
      this.stoppedBy = "lines"
      return false
    }
    const row = numberedLine(this.seen, line, length)
    const size = Buffer.byteLength(row, "utf8") + 1
    if (this.rows.length > 0 && this.bytes + size > this.byteBudget) {
      this.stoppedBy = "bytes"
      return false
    }
    this.rows.push(row)
    this.bytes += size
    return true
  }

  get lastLine(): number {
    return this.offset + this.rows.length - 1
  }
}

/** `cat -n` style: the number right-aligned in 6 columns, a tab, the line without its `\r`. */
const numberedLine = (n: number, line: string, length?: number): string => {
  const text = line.endsWith("\r") ? line.slice(0, -1) : line
  const total = length ?? text.length
  const shown = total > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS)}… [${total - MAX_LINE_CHARS} more characters]` : text
  return `${String(n).padStart(6, " ")}\t${shown}`
}

/** The lines of a text as a file holds them: a final newline ends the last line, it does not start another. */
export const splitLines = (text: string): Array<string> => {
  if (text === "") return []
  const lines = text.split("\n")
  if (lines[lines.length - 1] === "") lines.pop()
  return lines
}
