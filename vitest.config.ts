import { availableParallelism } from "node:os"
import { configDefaults, defineConfig } from "vitest/config"
import { slowLane } from "./test/lanes.js"

/**
 * The fast lane (`npm test`): everything but the slow lane (test/lanes.ts).
 *
 * How it runs, measured on the 2-core machine (docs/performance.md#the-fast-lane-issue-33):
 * - `isolate: false`: each worker imports effect, the platform and our sources once, not once per
 *   file; the import was most of the lane's CPU (test/core alone: 119 s of CPU isolated, 40 s not).
 *   Files still run one at a time in a worker. They leave nothing behind that another reads:
 *   environment variables are put back, temporary folders are their own, the module-level caches
 *   in src/ are pure memos. The one shared thing that was not, @effect/vitest's `it`, is put back
 *   before each file by the setup file.
 * - one worker per core: Vitest's default leaves a core to its main process, which idles here,
 *   while tests wait on their subprocesses (shell commands, MCP servers, git); two workers on two
 *   cores took the lane from 476 s to 309 s (a loaded machine), a third added nothing.
 */
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: [...configDefaults.exclude, ...slowLane],
    setupFiles: ["test/support/effect-vitest-api.ts"],
    isolate: false,
    pool: "forks",
    maxWorkers: availableParallelism(),
    minWorkers: 1,
    testTimeout: 30_000,
    hookTimeout: 60_000
  }
})
