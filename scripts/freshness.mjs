// Whether dist/ is the build of the sources as they are now, so `npm start` and `npm test`
// rebuild only when something changed (a full build takes over a minute on a small machine).
// The stamp's time is when the last successful build began: a source saved during a build
// counts as changed.
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs"
import { dirname, join, relative } from "node:path"
import { fileURLToPath } from "node:url"

/** What the build reads: a change to any of these makes dist/ stale. */
export const INPUTS = ["src", "web", "tsconfig.json", "tsconfig.build.json", "package.json", "package-lock.json", "scripts/build-cli.mjs"]
/** What the build must have left, or it did not finish. */
export const OUTPUTS = ["dist/bundle/cli.js", "dist/cli/v8-flags.js", "dist/web/index.html"]
export const STAMP = "dist/.build-stamp"
const BEGUN = `${STAMP}.begun`

/** The most recently modified file at `path` (itself, or anything under it), or undefined when there is none. */
export const newestFile = (path) => {
  if (!existsSync(path)) return undefined
  const info = statSync(path)
  if (!info.isDirectory()) return { path, mtimeMs: info.mtimeMs }
  let newest
  for (const entry of readdirSync(path)) {
    const found = newestFile(join(path, entry))
    if (found !== undefined && (newest === undefined || found.mtimeMs > newest.mtimeMs)) newest = found
  }
  return newest
}

/** Why the build in `root` is out of date, in words; undefined when it is up to date. */
export const staleReason = (root) => {
  const stamp = join(root, STAMP)
  if (!existsSync(stamp)) return "no finished build"
  const missing = OUTPUTS.find((output) => !existsSync(join(root, output)))
  if (missing !== undefined) return `${missing} is missing`
  const built = statSync(stamp).mtimeMs
  for (const input of INPUTS) {
    const newest = newestFile(join(root, input))
    if (newest !== undefined && newest.mtimeMs > built) return `${relative(root, newest.path)} changed since the last build`
  }
  return undefined
}

/** Called as a build starts: the last stamp no longer holds, and the new one will carry this moment. */
export const beginBuild = (root) => {
  mkdirSync(join(root, "dist"), { recursive: true })
  rmSync(join(root, STAMP), { force: true })
  writeFileSync(join(root, BEGUN), `${new Date().toISOString()}\n`)
}

/** Called once the build succeeded: the stamp it began is now the last build's. */
export const finishBuild = (root) => renameSync(join(root, BEGUN), join(root, STAMP))

/** Builds when stale, its output on stderr (stdout stays the CLI's); exits with the build's code if it fails. */
export const ensureBuilt = (root) => {
  const reason = staleReason(root)
  if (reason === undefined) return
  process.stderr.write(`building custom-agent (${reason})...\n`)
  const built = spawnSync("npm", ["run", "build", "--silent"], { cwd: root, stdio: ["ignore", 2, 2] })
  if (built.status !== 0) process.exit(built.status ?? 1)
}

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const step = process.argv[2]
  if (step === "begin") beginBuild(root)
  else if (step === "done") finishBuild(root)
  else if (step === "ensure") ensureBuilt(root)
  else {
    process.stderr.write("usage: node scripts/freshness.mjs begin|done|ensure\n")
    process.exit(2)
  }
}
