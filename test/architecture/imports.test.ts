import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"

const root = resolve(import.meta.dirname, "../..")
const src = join(root, "src")

const filesUnder = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return filesUnder(path)
    return /\.tsx?$/.test(entry.name) ? [path] : []
  })

/** Every module specifier a file imports: static, type-only, re-exports and dynamic imports. */
const importsOf = (file: string): Array<string> => {
  const text = readFileSync(file, "utf8")
  const found: Array<string> = []
  for (const match of text.matchAll(/(?:import|export)\s[^"';]*?from\s*["']([^"']+)["']|import\s*\(\s*["']([^"']+)["']\s*\)|import\s+["']([^"']+)["']/g)) {
    const spec = match[1] ?? match[2] ?? match[3]
    if (spec !== undefined) found.push(spec)
  }
  return found
}

/** A relative import as a path under src/ (e.g. "domain/events.js"); packages stay as they are. */
const target = (file: string, spec: string) =>
  spec.startsWith(".") ? `src/${relative(src, resolve(dirname(file), spec))}` : spec

const violations = (folder: string, allowed: (target: string) => boolean) =>
  filesUnder(join(src, folder)).flatMap((file) =>
    importsOf(file)
      .map((spec) => target(file, spec))
      .filter((t) => !allowed(t))
      .map((t) => `${relative(root, file)} imports ${t}`)
  )

const isEffect = (t: string) => t === "effect" || t.startsWith("effect/")
const under = (...folders: Array<string>) => (t: string) => folders.some((f) => t.startsWith(`src/${f}/`))

/** Packages that may only appear in one corner of the tree. */
const confined: ReadonlyArray<readonly [RegExp, ReadonlyArray<string>]> = [
  [/^@anthropic-ai\/sdk/, ["src/layers/model/"]],
  [/^openai$/, ["src/layers/model/"]],
  [/^(better-sqlite3|@effect\/sql)/, ["src/layers/event-store/", "src/layers/permission/", "src/layers/memory/", "src/layers/cluster/"]],
  // Only the Postgres store's and the cluster's own files: the default paths (and the CLI bundle) never load them.
  [/^@effect\/sql-pg/, ["src/layers/event-store/postgres", "src/layers/cluster/"]],
  // The session entity and the API's router are protocol code (src/cluster), wired in src/app/cluster.ts.
  [/^@effect\/cluster/, ["src/layers/cluster/", "src/cluster/", "src/app/cluster.ts"]],
  [/^@modelcontextprotocol\/sdk/, ["src/layers/tools/"]],
  [/^@agentclientprotocol\/sdk/, ["src/acp/"]],
  [/^node:child_process$/, ["src/layers/"]]
]

describe("architecture", () => {
  it("the tree has files (the scan itself works)", () => {
    expect(filesUnder(join(src, "core")).length).toBeGreaterThan(0)
    expect(importsOf(join(src, "core", "SessionEngine.ts"))).toContain("effect/Effect")
  })

  it("src imports effect module by module, never through the package's index", () => {
    // The index re-exports every module as a namespace object; through it the CLI bundle kept
    // all of effect and thousands of export getters (twice the start-up chunk, docs/performance.md).
    expect(violations(".", (t) => t !== "effect")).toEqual([])
  })

  it("what the launcher loads before the CLI's bundle (the early frame, the command line's check) imports nothing", () => {
    // Each import there is paid before the session's first frame (bin/custom-agent.js).
    for (const file of ["cli/early-frame.ts", "cli/interactive/entry-argv.ts", "cli/v8-flags.ts"]) expect(importsOf(join(src, file)), file).toEqual([])
  })

  it("src/core imports only src/domain, src/services, src/core and effect", () => {
    expect(violations("core", (t) => isEffect(t) || under("domain", "services", "core")(t))).toEqual([])
  })

  it("src/domain imports only effect and itself", () => {
    expect(violations("domain", (t) => isEffect(t) || under("domain")(t))).toEqual([])
  })

  it("src/services holds ports: only effect, src/domain and src/services", () => {
    expect(violations("services", (t) => isEffect(t) || under("domain", "services")(t))).toEqual([])
  })

  it("src/rpc talks to the host, never to src/core", () => {
    expect(violations("rpc", (t) => !under("core")(t))).toEqual([])
  })

  it("src/acp talks to the host, never to src/core", () => {
    expect(violations("acp", (t) => !under("core")(t))).toEqual([])
  })

  it("src/cluster talks to the host, never to src/core", () => {
    expect(violations("cluster", (t) => !under("core")(t))).toEqual([])
  })

  it("the web page talks to the agent only through the API: domain schemas and the RPC client", () => {
    const web = join(root, "web", "src")
    const misplaced = filesUnder(web).flatMap((file) =>
      importsOf(file)
        .filter((spec) => spec.startsWith("."))
        .map((spec) => relative(root, resolve(dirname(file), spec)))
        .filter((t) => t.startsWith("src/") && !t.startsWith("src/domain/") && !/^src\/rpc\/(client|group)\.js$/.test(t))
        .map((t) => `${relative(root, file)} imports ${t}`)
    )
    expect(misplaced).toEqual([])
  })

  it("provider SDKs, drivers and process APIs stay in their adapters", () => {
    const misplaced = filesUnder(src).flatMap((file) =>
      importsOf(file)
        .filter((spec) => confined.some(([pattern, places]) => pattern.test(spec) && !places.some((p) => relative(root, file).startsWith(p))))
        .map((spec) => `${relative(root, file)} imports ${spec}`)
    )
    expect(misplaced).toEqual([])
  })
})
