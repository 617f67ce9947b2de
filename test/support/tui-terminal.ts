import type { Terminal } from "@mariozechner/pi-tui"

/**
 * A pi-tui terminal for tests: what is written goes to `write`, its size is read when pi-tui
 * asks, keys come through the input `start` is handed; cursor, title and progress do nothing.
 */
export const stubTerminal = (io: {
  readonly write: (data: string) => void
  readonly size: () => { readonly columns: number; readonly rows: number }
  readonly start?: (onInput: (data: string) => void) => void
}): Terminal => ({
  start: (onInput) => io.start?.(onInput),
  stop: () => undefined,
  drainInput: async () => undefined,
  write: io.write,
  get columns() {
    return io.size().columns
  },
  get rows() {
    return io.size().rows
  },
  get kittyProtocolActive() {
    return false
  },
  moveBy: () => undefined,
  hideCursor: () => undefined,
  showCursor: () => undefined,
  clearLine: () => undefined,
  clearFromCursor: () => undefined,
  clearScreen: () => undefined,
  setTitle: () => undefined,
  setProgress: () => undefined
})
