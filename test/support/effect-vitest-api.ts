import { effect, flakyTest, it, layer, live, prop, scoped, scopedLive } from "@effect/vitest"

/**
 * Runs before every test file (vitest.config.ts `setupFiles`). @effect/vitest 0.30's `layer(...)`
 * writes its layer-bound `effect`, `scoped`, `layer`, ... onto the shared `it` object (Vitest's
 * own `it`), so a later `it.effect` runs in that layer's runtime, whose scope is closed, without
 * the TestClock. With one module registry per worker (`isolate: false`) that leaks into the next
 * file; putting the package's own methods back gives each file the `it` a fresh import would.
 * Fixed upstream by wrapping instead of mutating (Effect-TS/effect-smol#2177).
 */
Object.assign(it, { effect, scoped, live, scopedLive, layer, flakyTest, prop })
