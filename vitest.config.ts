import { configDefaults, defineConfig } from "vitest/config"
import { slowLane } from "./test/lanes.js"

/** The fast lane (`npm test`): everything but the slow lane (test/lanes.ts). */
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: [...configDefaults.exclude, ...slowLane],
    testTimeout: 30_000,
    hookTimeout: 60_000
  }
})
