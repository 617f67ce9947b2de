import { mkdtempSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** Temporary directories for a test file (real paths, symlinks resolved), removed by `cleanup`. */
export const makeTemp = () => {
  const dirs: Array<string> = []
  return {
    dir: (prefix: string) => {
      const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)))
      dirs.push(dir)
      return dir
    },
    cleanup: () => {
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
    }
  }
}
