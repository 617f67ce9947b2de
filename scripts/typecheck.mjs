// `npm run typecheck`: the project (src, test, scripts) and the web page, both at once, each
// incremental. Side by side they take the time of the larger (the two used a minute in a row on
// two cores); the build info in .typecheck/ lets a run after a small change re-check only what
// it reaches. tsc reports the same errors either way: the build info holds each file's hash and
// anything whose inputs changed is checked again.
import { spawn } from "node:child_process"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc")

/** `tsc --noEmit` over one tsconfig; its output kept until it ends, so the two never interleave. */
const check = (project, name) =>
  new Promise((resolve) => {
    const args = [tsc, "--noEmit", "-p", project, "--incremental", "--tsBuildInfoFile", join(".typecheck", `${name}.tsbuildinfo`)]
    // Piped, tsc leaves out colours; keep them when the run is on a terminal, as a direct tsc would.
    if (process.stdout.isTTY) args.push("--pretty")
    const child = spawn(process.execPath, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    child.stdout.on("data", (chunk) => (output += chunk))
    child.stderr.on("data", (chunk) => (output += chunk))
    child.on("error", (error) => resolve({ name, code: 1, output: `${error.message}\n` }))
    child.on("close", (code, signal) => resolve({ name, code: code ?? 1, output: signal === null ? output : `${output}tsc ended by ${signal}\n` }))
  })

const results = await Promise.all([check(".", "project"), check("web", "web")])
for (const { output } of results) process.stdout.write(output)
const failed = results.filter((result) => result.code !== 0)
if (failed.length > 0) {
  process.stderr.write(`typecheck failed: ${failed.map((result) => result.name).join(", ")}\n`)
  process.exit(1)
}
