// Bundles the CLI into dist/bundle: one ESM entry plus chunks that load only when a command
// needs them (a provider SDK, MCP, ACP, the HTTP server). A bundle starts several times
// faster than thousands of separate modules; see docs/performance.md for the figures.
import { build } from "esbuild"
import { rmSync } from "node:fs"

rmSync("dist/bundle", { recursive: true, force: true })
await build({
  entryPoints: { cli: "src/cli/main.ts" },
  outdir: "dist/bundle",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  minify: process.env.BUNDLE_MINIFY !== "0",
  sourcemap: "linked",
  // Native addon: loaded from node_modules at run time.
  external: ["better-sqlite3"],
  // Bundled CommonJS dependencies still call require().
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  logLevel: "warning"
})
