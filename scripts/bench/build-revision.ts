import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { repoRoot } from "./processes.js"

const git = (...args: ReadonlyArray<string>) => execFileSync("git", args, { cwd: repoRoot, encoding: "utf8" }).trim()

/** The commit to export: "." is the working tree (`git stash create` records it without touching the stash). */
const commitOf = (revision: string): string => {
  if (revision !== ".") return git("rev-parse", "--verify", `${revision}^{commit}`)
  return git("stash", "create") || git("rev-parse", "HEAD")
}

/** Exports one revision into `into` and builds its CLI there with this checkout's node_modules; gives the path of its CLI. */
export const buildRevision = (revision: string, into: string): string => {
  const commit = commitOf(revision)
  fs.mkdirSync(into, { recursive: true })
  const archive = path.join(into, "source.tar")
  execFileSync("git", ["archive", "--output", archive, commit], { cwd: repoRoot })
  execFileSync("tar", ["-xf", archive, "-C", into])
  fs.rmSync(archive)
  fs.symlinkSync(path.join(repoRoot, "node_modules"), path.join(into, "node_modules"), "dir")
  const run = (command: string, args: ReadonlyArray<string>) => execFileSync(command, args, { cwd: into, stdio: ["ignore", "ignore", "inherit"] })
  run(process.execPath, [path.join(repoRoot, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.build.json"])
  run(process.execPath, ["scripts/build-cli.mjs"])
  console.log(`  ${revision} (${commit.slice(0, 7)}) built`)
  return path.join(into, "bin", "custom-agent.js")
}
