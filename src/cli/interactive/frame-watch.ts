import { ProcessTerminal } from "@mariozechner/pi-tui"

/** The end of a synchronized-output block: pi-tui draws each frame in one. */
const FRAME_END = "\x1b[?2026l"

/**
 * The process's terminal, telling once when the first frame was written: the session waits
 * for it before reading a session's history, so the screen (and the launcher's early frame,
 * taken over in a synchronized block that frame closes) is never held behind a long load.
 */
export class FrameWatchingTerminal extends ProcessTerminal {
  #onFirstFrame: (() => void) | undefined
  constructor(onFirstFrame: () => void) {
    super()
    this.#onFirstFrame = onFirstFrame
  }
  override write(data: string): void {
    super.write(data)
    const notify = this.#onFirstFrame
    if (notify !== undefined && data.includes(FRAME_END)) {
      this.#onFirstFrame = undefined
      notify()
    }
  }
}
