/** How much of a server's stderr is kept to explain a failure. */
const KEEP_LINES = 8
const KEEP_LINE_CHARS = 300

/**
 * The last lines a stdio server wrote to stderr. Servers log there freely; it never reaches
 * our stdout, and only the tail is kept, to explain why a server failed or exited.
 */
export class StderrTail {
  private lines: Array<string> = []
  private partial = ""

  readonly append = (chunk: Buffer | string): void => {
    const text = this.partial + chunk.toString()
    const parts = text.split(/\r?\n/)
    this.partial = (parts.pop() ?? "").slice(-KEEP_LINE_CHARS)
    for (const line of parts) if (line.trim() !== "") this.lines.push(line.slice(0, KEEP_LINE_CHARS))
    if (this.lines.length > KEEP_LINES) this.lines = this.lines.slice(-KEEP_LINES)
  }

  /** The kept lines, the unfinished last one included; empty when the server wrote nothing. */
  render(): string {
    const all = this.partial.trim() === "" ? this.lines : [...this.lines, this.partial]
    return all.slice(-KEEP_LINES).join("\n")
  }
}

/** `reason`, followed by what the server last wrote to stderr, if anything. */
export const withStderr = (reason: string, tail: StderrTail | undefined): string => {
  const text = tail?.render() ?? ""
  return text === "" ? reason : `${reason}; stderr:\n${text}`
}
