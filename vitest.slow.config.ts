import { defineConfig } from "vitest/config"
import { slowLane } from "./test/lanes.js"

/** The slow lane (`npm run test:slow`): subprocesses, the browser, pseudo-terminals (test/lanes.ts). */
export default defineConfig({
  test: {
    include: [...slowLane],
    testTimeout: 30_000,
    hookTimeout: 60_000
  }
})
