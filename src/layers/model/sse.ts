/** One server-sent event: its `event:` name (when it has one) and its `data:` lines joined by newlines. */
export interface SseEvent {
  readonly event: string | undefined
  readonly data: string
}

/**
 * An incremental parser for the `text/event-stream` format: feed it text as it arrives,
 * in chunks that may split lines anywhere (a CRLF included). Comments, `id:` and `retry:`
 * are ignored; an event is dispatched at its blank line, or at the end if the server
 * omitted the last one.
 */
export const makeSseParser = () => {
  let buffer = ""
  let event: string | undefined
  let data: Array<string> = []

  const dispatch = (out: Array<SseEvent>) => {
    if (data.length > 0) out.push({ event, data: data.join("\n") })
    event = undefined
    data = []
  }

  const line = (text: string, out: Array<SseEvent>) => {
    if (text === "") return dispatch(out)
    if (text.startsWith(":")) return
    const colon = text.indexOf(":")
    const field = colon === -1 ? text : text.slice(0, colon)
    const raw = colon === -1 ? "" : text.slice(colon + 1)
    const value = raw.startsWith(" ") ? raw.slice(1) : raw
    if (field === "data") data.push(value)
    else if (field === "event") event = value
  }

  const feed = (chunk: string): ReadonlyArray<SseEvent> => {
    buffer += chunk
    const out: Array<SseEvent> = []
    let start = 0
    for (let i = 0; i < buffer.length; i++) {
      const char = buffer[i]
      if (char !== "\n" && char !== "\r") continue
      // A CR at the very end may be the first half of a CRLF: wait for the next chunk.
      if (char === "\r" && i === buffer.length - 1) break
      line(buffer.slice(start, i), out)
      if (char === "\r" && buffer[i + 1] === "\n") i++
      start = i + 1
    }
    buffer = buffer.slice(start)
    return out
  }

  const end = (): ReadonlyArray<SseEvent> => {
    const out: Array<SseEvent> = []
    if (buffer !== "") line(buffer.replace(/\r$/, ""), out)
    buffer = ""
    dispatch(out)
    return out
  }

  return { feed, end }
}

/** The parser on bytes: multi-byte characters split between chunks are kept whole. */
export const makeSseDecoder = () => {
  const parser = makeSseParser()
  const decoder = new TextDecoder()
  return {
    feed: (bytes: Uint8Array): ReadonlyArray<SseEvent> => parser.feed(decoder.decode(bytes, { stream: true })),
    end: (): ReadonlyArray<SseEvent> => [...parser.feed(decoder.decode()), ...parser.end()]
  }
}
