import type { Component } from "@mariozechner/pi-tui"
import { makeBlockLines } from "./block-lines.js"
import type { Block, Timeline } from "./timeline.js"
import type { Theme } from "./theme.js"

/**
 * The conversation on the screen: the timeline's blocks, top to bottom. The screen keeps every
 * line (pi-tui's model: what scrolls off the top is the terminal's scrollback); a block is drawn
 * again only when it changed or the width did, so a long conversation costs little per frame.
 */
export class Transcript implements Component {
  readonly #timeline: Timeline
  readonly #draw: ReturnType<typeof makeBlockLines>
  readonly #cache = new WeakMap<Block, { readonly width: number; readonly version: number; readonly lines: ReadonlyArray<string> }>()

  constructor(timeline: Timeline, theme: Theme) {
    this.#timeline = timeline
    this.#draw = makeBlockLines(theme)
  }

  render(width: number): Array<string> {
    const out: Array<string> = []
    let previous: Block | undefined
    for (const block of this.#timeline.blocks) {
      if (this.#draw.gapBefore(previous, block)) out.push("")
      const cached = this.#cache.get(block)
      if (cached !== undefined && cached.width === width && cached.version === block.version) out.push(...cached.lines)
      else {
        const lines = this.#draw.lines(block, width)
        this.#cache.set(block, { width, version: block.version, lines })
        out.push(...lines)
      }
      previous = block
    }
    return out
  }

  invalidate(): void {
    // Cached lines are keyed by width and version: nothing else can make them stale.
  }
}
