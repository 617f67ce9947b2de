import type { Component } from "@mariozechner/pi-tui"

/**
 * Lines as the terminal shows them, in fewer bytes. pi-tui alone redraws the lines under the
 * conversation (spinner, editor, status) each time the conversation grows by a line (the
 * screen now opens rows above them instead, `inserting-tui.ts`, but a full redraw still
 * writes them): the editor's borders alone were about 1,300 bytes each (pi-tui colours every
 * `─` on its own), three quarters of all that was written. A run of one styled text repeated becomes one styled run, and spaces
 * ending a line are left out (the renderer clears each line it draws, so they showed nothing).
 */

const SGR = /\x1b\[([0-9;]*)m/g

/** The code that turns off exactly what `open` turns on, when there is one. */
const closeOf = (open: string): string | undefined => {
  if (/^(3[0-7]|9[0-7]|38;5;\d+|38;2;\d+;\d+;\d+)$/.test(open)) return "39"
  if (/^(4[0-7]|10[0-7]|48;5;\d+|48;2;\d+;\d+;\d+)$/.test(open)) return "49"
  switch (open) {
    case "1":
    case "2":
      return "22"
    case "3":
      return "23"
    case "4":
      return "24"
    case "7":
      return "27"
    case "9":
      return "29"
    default:
      return undefined
  }
}

// `open text close`, then the same again at least once.
const REPEATED = /\x1b\[([0-9;]*)m([^\x1b]+)\x1b\[([0-9;]*)m(?:\x1b\[\1m\2\x1b\[\3m)+/g

const mergeRuns = (line: string): string =>
  line.replace(REPEATED, (whole, open: string, text: string, close: string) => {
    // Only when `close` undoes `open` alone is `o t c o t c` drawn as `o t t c` is.
    if (closeOf(open) !== close) return whole
    const count = whole.length / (open.length + text.length + close.length + 6)
    return `\x1b[${open}m${text.repeat(count)}\x1b[${close}m`
  })

/** Whether a background (or reverse video) is on at the end of `line`: spaces then still show. */
const backgroundOn = (line: string): boolean => {
  let on = false
  for (const match of line.matchAll(SGR)) {
    const codes = (match[1] ?? "").split(";")
    for (let i = 0; i < codes.length; i++) {
      const code = codes[i] ?? ""
      if (code === "38" || code === "48") {
        // An extended colour: its arguments are not codes of their own.
        if (code === "48") on = true
        i += codes[i + 1] === "2" ? 4 : 2
      } else if (code === "" || code === "0" || code === "49" || code === "27") on = false
      else if (code === "7" || /^(4[0-7]|10[0-7])$/.test(code)) on = true
    }
  }
  return on
}

const trimEnd = (line: string): string => {
  const trimmed = line.replace(/ +$/, "")
  return trimmed.length === line.length || backgroundOn(trimmed) ? line : trimmed
}

export const compactLine = (line: string): string => trimEnd(mergeRuns(line))

/** A component drawn as `inner` draws it, each line compacted; focus and keys stay with `inner`. */
export class Compacted implements Component {
  readonly #inner: Component
  constructor(inner: Component) {
    this.#inner = inner
  }
  render(width: number): Array<string> {
    return this.#inner.render(width).map(compactLine)
  }
  invalidate(): void {
    this.#inner.invalidate()
  }
}
