import { defineConfig } from "vitest/config"
import { slowLane } from "./test/lanes.js"

/** The slow lane (`npm run test:slow`): subprocesses, the browser, pseudo-terminals (test/lanes.ts). */
export default defineConfig({
  test: {
    include: [...slowLane],
    // Only a guard against a hang: these tests start processes, and a loaded machine makes each
    // start take seconds (30 s cut whole CLI tests short at a load of 8 on 2 cores).
    testTimeout: 120_000,
    hookTimeout: 60_000
  }
})
