// Bundles the CLI into dist/bundle: one ESM entry plus chunks that load only when a command
// needs them (a provider SDK, MCP, ACP, the HTTP server). A bundle starts several times
// faster than thousands of separate modules; see docs/performance.md for the figures.
import { build } from "esbuild"
import { rmSync } from "node:fs"

rmSync("dist/bundle", { recursive: true, force: true })

/**
 * Stubs for code every start would parse and run but this CLI never calls: @effect/cli
 * imports YAML, TOML and INI parsers for file-parsing options (`Options.fileParse`, config
 * files), and effect's Schema imports fast-check for generating arbitraries. Together about
 * a fifth of the start-up bundle; without them a scripted one-line `run` starts about 19 ms
 * sooner (docs/performance.md). A stub that is called anyway throws, saying so.
 */
const unusedAtRunTime = {
  name: "unused-at-run-time",
  setup(build) {
    const stubs = [
      { filter: /^(yaml|toml|ini)$/, importer: "node_modules/@effect/cli/", exports: ["parse"] },
      { filter: /^fast-check$/, importer: "node_modules/effect/", exports: ["array"] }
    ]
    for (const stub of stubs) {
      build.onResolve({ filter: stub.filter }, (args) =>
        args.importer.includes(stub.importer) ? { path: args.path, namespace: "unused-at-run-time", pluginData: stub.exports } : undefined
      )
    }
    build.onLoad({ filter: /.*/, namespace: "unused-at-run-time" }, (args) => ({
      contents: args.pluginData
        .map((name) => `export const ${name} = () => { throw new Error("custom-agent's CLI bundle leaves out ${args.path} (${name} was called)") }`)
        .join("\n"),
      loader: "js"
    }))
  }
}

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
  logLevel: "warning",
  plugins: [unusedAtRunTime]
})
