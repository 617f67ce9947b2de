import { Effect } from "effect"
import * as fs from "node:fs/promises"
import { errnoCode } from "./fs-errors.js"
import { looksBinaryBytes, SNIFF_BYTES } from "./text-sniff.js"

/** What the local disk says about a path before a file tool reads it. */
export type DiskProbe =
  | { readonly kind: "missing" }
  | { readonly kind: "directory" }
  | { readonly kind: "file"; readonly size: number; readonly binary: boolean }
  /** Could not tell (e.g. permission denied): the tool's own read reports the problem. */
  | { readonly kind: "unknown" }

/** Stats `p` (following symlinks) and sniffs the first bytes of a regular file. Never fails. */
export const probeDisk = (p: string): Effect.Effect<DiskProbe> =>
  Effect.promise(async (): Promise<DiskProbe> => {
    try {
      const stat = await fs.stat(p)
      if (stat.isDirectory()) return { kind: "directory" }
      if (!stat.isFile()) return { kind: "unknown" }
      const handle = await fs.open(p, "r")
      try {
        const sample = Buffer.alloc(Math.min(SNIFF_BYTES, stat.size))
        const { bytesRead } = await handle.read(sample, 0, sample.length, 0)
        return { kind: "file", size: stat.size, binary: looksBinaryBytes(sample.subarray(0, bytesRead)) }
      } finally {
        await handle.close()
      }
    } catch (error) {
      return errnoCode(error) === "ENOENT" || errnoCode(error) === "ENOTDIR" ? { kind: "missing" } : { kind: "unknown" }
    }
  })
