const NEWLINE = 0x0a
const CARRIAGE_RETURN = 0x0d

export type BoundedLine =
  | { readonly _tag: "Line"; readonly number: number; readonly text: string }
  /** Line `number` passed `maxBytes`: reading stopped there, with at most one chunk of it held. */
  | { readonly _tag: "TooLong"; readonly number: number }

/**
 * The lines of a byte stream (UTF-8, `\n` or `\r\n`), numbered from 1, a last line without
 * its `\n` included. A line is gathered as raw chunks and decoded once it is whole, and never
 * past `maxBytes`: the one that passes it ends the reading, so a huge line costs at most the
 * limit plus one chunk of memory (a 512 MB line once died in V8's string limit).
 */
export async function* boundedLines(chunks: AsyncIterable<Uint8Array>, maxBytes: number): AsyncGenerator<BoundedLine, void, undefined> {
  let parts: Array<Uint8Array> = []
  let length = 0
  let number = 1
  const take = (): BoundedLine => {
    let whole = Buffer.concat(parts, length)
    if (whole[whole.length - 1] === CARRIAGE_RETURN) whole = whole.subarray(0, whole.length - 1)
    parts = []
    length = 0
    return { _tag: "Line", number: number++, text: whole.toString("utf8") }
  }
  for await (const chunk of chunks) {
    let from = 0
    for (let newline = chunk.indexOf(NEWLINE); newline >= 0; newline = chunk.indexOf(NEWLINE, from)) {
      if (length + newline - from > maxBytes) {
        yield { _tag: "TooLong", number }
        return
      }
      parts.push(chunk.subarray(from, newline))
      length += newline - from
      yield take()
      from = newline + 1
    }
    if (length + chunk.length - from > maxBytes) {
      yield { _tag: "TooLong", number }
      return
    }
    if (from < chunk.length) {
      parts.push(chunk.subarray(from))
      length += chunk.length - from
    }
  }
  if (length > 0) yield take()
}
