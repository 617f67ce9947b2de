import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import { errnoCode } from "./fs-errors.js"
import { looksBinaryBytes, SNIFF_BYTES } from "./text-sniff.js"

/** What the local disk says about a path before a file tool reads it. */
export type DiskProbe =
  | { readonly kind: "missing" }
  | { readonly kind: "directory" }
  | { readonly kind: "file"; readonly size: number; readonly binary: boolean }
  /** Could not tell (e.g. permission denied): the tool's own read reports the problem. */
  | { readonly kind: "unknown" }

/**
 * Stats `p` (following symlinks) and sniffs the first bytes of a regular file. Never fails.
 * Synchronous on purpose: four tiny system calls cost microseconds, while four trips through
 * the thread pool cost about a millisecond on every tool call.
 */
export const probeDisk = (p: string): Effect.Effect<DiskProbe> =>
  Effect.sync((): DiskProbe => {
    try {
      const stat = fs.statSync(p)
      if (stat.isDirectory()) return { kind: "directory" }
      if (!stat.isFile()) return { kind: "unknown" }
      const fd = fs.openSync(p, "r")
      try {
        const sample = Buffer.alloc(Math.min(SNIFF_BYTES, stat.size))
        const bytesRead = fs.readSync(fd, sample, 0, sample.length, 0)
        return { kind: "file", size: stat.size, binary: looksBinaryBytes(sample.subarray(0, bytesRead)) }
      } finally {
        fs.closeSync(fd)
      }
    } catch (error) {
      return errnoCode(error) === "ENOENT" || errnoCode(error) === "ENOTDIR" ? { kind: "missing" } : { kind: "unknown" }
    }
  })
