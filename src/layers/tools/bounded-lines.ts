/** One line of a stream: its first characters and how long it was (a trailing `\r` not counted). */
export interface BoundedLine {
  readonly text: string
  readonly length: number
}

/**
 * The lines of a text stream, each kept to its first `keep` characters, with the length it
 * had. A line reader that builds whole lines (node:readline) turns a file of one gigabyte-long
 * line into one string and ends the process with "Invalid string length"; a repository can
 * ship such a file in a few kilobytes of git objects.
 */
export async function* boundedLines(chunks: AsyncIterable<string>, keep: number): AsyncGenerator<BoundedLine> {
  let text = ""
  let length = 0
  let lastChar = ""
  const end = (): BoundedLine => {
    const cr = lastChar === "\r" ? 1 : 0
    const line = { text: cr === 1 && text.length === length ? text.slice(0, -1) : text, length: length - cr }
    text = ""
    length = 0
    lastChar = ""
    return line
  }
  const take = (piece: string) => {
    if (piece === "") return
    if (text.length < keep) text += piece.slice(0, keep - text.length)
    length += piece.length
    lastChar = piece[piece.length - 1] ?? ""
  }
  for await (const chunk of chunks) {
    let start = 0
    for (let newline = chunk.indexOf("\n"); newline !== -1; newline = chunk.indexOf("\n", start)) {
      take(chunk.slice(start, newline))
      yield end()
      start = newline + 1
    }
    take(chunk.slice(start))
  }
  if (length > 0) yield end()
}
