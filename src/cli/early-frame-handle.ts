import type { EarlyFrame } from "./early-frame.js"

/**
 * The launcher's early frame (`early-frame.ts`), handed to the CLI with the command line: the
 * CLI's writers dismiss it before anything else reaches the terminal, the interactive
 * session takes it over. A module of the bundle of its own, so both find the same one.
 */
let current: EarlyFrame | undefined

export const adoptEarlyFrame = (frame: EarlyFrame | undefined): void => {
  current = frame
}

/** Before other output: the frame goes, the terminal is as it was (the keys typed stay kept). */
export const dismissEarlyFrame = (): void => current?.dismiss()

/** The session draws now: the frame is taken over and forgotten. */
export const handOverEarlyFrame = (): void => {
  const frame = current
  current = undefined
  frame?.handOver()
}
