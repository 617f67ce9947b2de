import { execFileSync } from "node:child_process"
import { createHash, randomBytes } from "node:crypto"
import { accessSync, constants, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, relative } from "node:path"

/**
 * One case's world, all under one temporary root:
 * - `ws`: the workspace (a package.json whose `test` script echoes `ok`, `src/a.ts`, `a.txt`,
 *   `b.txt`, `victim.txt`, a `.env` holding a secret, an empty project rules file and a
 *   skeleton `.git` with `config` and `hooks/`);
 * - `outside`: beside the workspace, with `secret.txt` and `target.txt` holding a secret;
 * - `home`: what `HOME` (and so `~`) is while the case runs;
 * - `config`: the user's configuration directory (its `permissions.json` holds the case's rules);
 * - `data`: the data directory (store, remembered answers, trust).
 */
export interface Fixture {
  readonly root: string
  readonly ws: string
  readonly outside: string
  readonly home: string
  readonly config: string
  readonly data: string
  /** In every file outside the workspace: no log of a refused call may contain it. */
  readonly outsideSecret: string
  /** In `ws/.env`. */
  readonly envSecret: string
  /** The text with `{ROOT}`, `{WS}`, `{OUT}`, `{HOME}`, `{CONFIG}`, `{DATA}` replaced by this fixture's paths. */
  readonly fill: (text: string) => string
}

/**
 * Prefer /var/tmp: the sandbox gives commands a private /tmp, so a write to an "outside"
 * directory under /tmp would vanish whatever the permission layer did, and prove nothing.
 */
const baseDir = (() => {
  try {
    accessSync("/var/tmp", constants.W_OK)
    return realpathSync("/var/tmp")
  } catch {
    return realpathSync(tmpdir())
  }
})()

const roots: Array<string> = []

/** Removes every fixture made so far (afterAll). */
export const removeFixtures = () => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true })
}

const write = (file: string, content: string) => {
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, content)
}

/** A temporary folder removed with the fixtures. */
export const tempDir = (prefix: string) => {
  const dir = realpathSync(mkdtempSync(join(baseDir, prefix)))
  roots.push(dir)
  return dir
}

export const makeFixture = (): Fixture => {
  const root = tempDir("ca-security-")
  const ws = join(root, "ws")
  const outside = join(root, "outside")
  const home = join(root, "home")
  const config = join(root, "config")
  const data = join(root, "data")
  const outsideSecret = `OUTSIDE-SECRET-${randomBytes(6).toString("hex")}`
  const envSecret = `ENV-SECRET-${randomBytes(6).toString("hex")}`
  for (const dir of [ws, outside, home, config, data]) mkdirSync(dir, { recursive: true })

  write(join(ws, "package.json"), `${JSON.stringify({ name: "ws", private: true, scripts: { test: "echo ok" } })}\n`)
  write(join(ws, "src", "a.ts"), "export const a = 1\n")
  write(join(ws, "a.txt"), "alpha\n")
  write(join(ws, "b.txt"), "beta\n")
  write(join(ws, "victim.txt"), "victim\n")
  write(join(ws, ".env"), `TOKEN=${envSecret}\n`)
  write(join(ws, ".custom-agent", "permissions.json"), `${JSON.stringify({ rules: [] })}\n`)
  write(join(ws, ".git", "HEAD"), "ref: refs/heads/main\n")
  write(join(ws, ".git", "config"), "[core]\n\trepositoryformatversion = 0\n")
  write(join(ws, ".git", "hooks", "pre-commit.sample"), "#!/bin/sh\n")
  write(join(outside, "secret.txt"), `${outsideSecret}\n`)
  write(join(outside, "target.txt"), `outside target ${outsideSecret}\n`)
  write(join(home, ".bashrc"), `# ${outsideSecret}\n`)

  const fill = (text: string) =>
    text
      .replaceAll("{ROOT}", root)
      .replaceAll("{WS}", ws)
      .replaceAll("{OUT}", outside)
      .replaceAll("{HOME}", home)
      .replaceAll("{CONFIG}", config)
      .replaceAll("{DATA}", data)
  return { root, ws, outside, home, config, data, outsideSecret, envSecret, fill }
}

/** `fill` applied to every string inside a JSON-like value. */
export const fillDeep = (fx: Fixture, value: unknown): unknown => {
  if (typeof value === "string") return fx.fill(value)
  if (Array.isArray(value)) return value.map((v) => fillDeep(fx, v))
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillDeep(fx, v)]))
  }
  return value
}

/** Writes `content` at `path` (filled, relative to the root's `ws` unless absolute). */
export const putFile = (fx: Fixture, path: string, content: string) => write(resolveIn(fx, path), fx.fill(content))

/** A symbolic link at `path` (in the workspace unless absolute) pointing at `target` (as written, filled). */
export const putLink = (fx: Fixture, path: string, target: string) => {
  const at = resolveIn(fx, path)
  mkdirSync(dirname(at), { recursive: true })
  symlinkSync(fx.fill(target), at)
}

const resolveIn = (fx: Fixture, path: string) => {
  const filled = fx.fill(path)
  return filled.startsWith("/") ? filled : join(fx.ws, filled)
}

const git = (cwd: string, ...args: Array<string>) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main", ...args], {
    cwd,
    stdio: "ignore",
    env: { PATH: process.env["PATH"], HOME: cwd, GIT_CONFIG_NOSYSTEM: "1" }
  })

/**
 * Makes the workspace a real git repository with one commit, and `outside/remote.git` a bare
 * repository registered as `origin`: a push changes the outside directory.
 */
export const gitRepo = (fx: Fixture) => {
  rmSync(join(fx.ws, ".git"), { recursive: true, force: true })
  git(fx.ws, "init", "-q")
  git(fx.ws, "add", "-A")
  git(fx.ws, "commit", "-q", "-m", "initial")
  git(fx.outside, "init", "-q", "--bare", "remote.git")
  git(fx.ws, "remote", "add", "origin", join(fx.outside, "remote.git"))
}

/** A repository of its own at `path` in the workspace, with one commit: a clone the user keeps inside the project. */
export const nestedRepo = (fx: Fixture, path: string) => {
  const dir = join(fx.ws, path)
  mkdirSync(dir, { recursive: true })
  git(dir, "init", "-q")
  git(dir, "commit", "-q", "--allow-empty", "-m", "nested")
}

/**
 * The workspace as `git clone` leaves a repository with a submodule it did not check out: a
 * real repository whose index has a gitlink at `path`, its `.gitmodules` entry, and an empty
 * folder there (the submodule's commit is in `outside/lib`).
 */
export const unpopulatedSubmodule = (fx: Fixture, path: string) => {
  gitRepo(fx)
  const lib = join(fx.outside, "lib")
  mkdirSync(lib)
  git(lib, "init", "-q")
  git(lib, "commit", "-q", "--allow-empty", "-m", "lib")
  const commit = execFileSync("git", ["rev-parse", "HEAD"], { cwd: lib, encoding: "utf8", env: { PATH: process.env["PATH"], HOME: lib } }).trim()
  write(join(fx.ws, ".gitmodules"), `[submodule "${path}"]\n\tpath = ${path}\n\turl = ../outside/lib\n`)
  mkdirSync(join(fx.ws, path), { recursive: true })
  git(fx.ws, "update-index", "--add", "--cacheinfo", `160000,${commit},${path}`)
  git(fx.ws, "add", ".gitmodules")
  git(fx.ws, "commit", "-q", "-m", "submodule")
}

/** Paths a turn writes on its own (the session store, the workspace's checkpoints); left out of snapshots. */
const ignored = (rel: string) =>
  rel === "data" ||
  rel === "data/sessions" ||
  rel.startsWith("data/sessions/") ||
  rel.startsWith("data/custom-agent.db") ||
  rel === "data/checkpoints" ||
  rel.startsWith("data/checkpoints/") ||
  // npm's cache and logs under the fake home: noise from legitimate `npm test` runs.
  rel === "home/.npm" ||
  rel.startsWith("home/.npm/")

/**
 * Everything under `dir` (symlinks not followed), one line per entry: type, mode, and content
 * hash or link target. Two snapshots are equal when nothing was created, removed, changed or
 * re-linked.
 */
export const snapshot = (root: string, under: ReadonlyArray<string> = ["."]): Record<string, string> => {
  const entries: Record<string, string> = {}
  const walk = (path: string) => {
    const rel = relative(root, path) || "."
    if (ignored(rel)) {
      if (lstatSync(path).isDirectory()) for (const name of readdirSync(path)) walk(join(path, name))
      return
    }
    const stat = lstatSync(path)
    const mode = (stat.mode & 0o7777).toString(8)
    if (stat.isSymbolicLink()) entries[rel] = `link -> ${readlinkSync(path)}`
    else if (stat.isDirectory()) {
      entries[rel] = `dir ${mode}`
      for (const name of readdirSync(path)) walk(join(path, name))
    } else if (stat.isFile()) entries[rel] = `file ${mode} ${createHash("sha256").update(readFileSync(path)).digest("hex")}`
    else entries[rel] = `other ${mode}`
  }
  for (const part of under) walk(join(root, part))
  return entries
}

/** The snapshot entries outside the workspace's ordinary files: all but `ws/**`, plus the workspace's protected folders. */
export const protectedView = (entries: Record<string, string>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(entries).filter(
      ([rel]) => !rel.startsWith("ws/") || rel.startsWith("ws/.custom-agent") || rel.startsWith("ws/.git/config") || rel.startsWith("ws/.git/hooks")
    )
  )
