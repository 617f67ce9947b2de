import * as fs from "node:fs"
import { SourceMap, type SourceMapPayload } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { chainRunner } from "./chain-run.js"
import { snapshotCli } from "./processes.js"
import { ms, printMachine } from "./report.js"

/**
 * Where a 100-step chain's time goes (issue 8: the next optimisation starts from data). Runs
 * the chain of the agent-loop bench once under `node --cpu-prof`, then maps every sampled
 * frame of the bundle back to its source through the bundle's source maps and prints the
 * self time by owner (our layers, effect, the Anthropic SDK, Node's internals, the garbage
 * collector, idle waiting) and the hottest source files. Not part of the default run:
 * `npm run bench -- profile`.
 */

const STEPS = 100
const INTERVAL_US = 100

interface ProfileNode {
  readonly id: number
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number; readonly columnNumber: number }
}
interface CpuProfile {
  readonly nodes: ReadonlyArray<ProfileNode>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

const isCpuProfile = (value: unknown): value is CpuProfile =>
  typeof value === "object" && value !== null && "nodes" in value && "samples" in value && "timeDeltas" in value

/** An esbuild source map as JSON; the sources' contents are not needed, fields a map may omit get empty values. */
const toPayload = (value: unknown): SourceMapPayload | undefined => {
  if (typeof value !== "object" || value === null) return undefined
  const map: Record<string, unknown> = { ...value }
  const strings = (field: unknown) => (Array.isArray(field) ? field.filter((item): item is string => typeof item === "string") : [])
  if (typeof map["version"] !== "number" || typeof map["mappings"] !== "string") return undefined
  return {
    version: map["version"],
    mappings: map["mappings"],
    sources: strings(map["sources"]),
    sourcesContent: [],
    names: strings(map["names"]),
    file: typeof map["file"] === "string" ? map["file"] : "",
    sourceRoot: typeof map["sourceRoot"] === "string" ? map["sourceRoot"] : ""
  }
}

const loadMap = (url: string): SourceMap | undefined => {
  if (!url.startsWith("file://")) return undefined
  const file = `${fileURLToPath(url)}.map`
  if (!fs.existsSync(file)) return undefined
  const payload = toPayload(JSON.parse(fs.readFileSync(file, "utf8")))
  return payload === undefined ? undefined : new SourceMap(payload)
}

/** The original source of a frame: a repository-relative path, `node:<module>`, or a V8 pseudo-frame. */
const sourceOf = (frame: ProfileNode["callFrame"], maps: Map<string, SourceMap | undefined>): string => {
  if (frame.url === "") return frame.functionName.startsWith("(") ? frame.functionName : `(native) ${frame.functionName}`
  if (frame.url.startsWith("node:")) return frame.url
  if (!maps.has(frame.url)) maps.set(frame.url, loadMap(frame.url))
  const map = maps.get(frame.url)
  const entry = map?.findEntry(frame.lineNumber, frame.columnNumber)
  const original = entry !== undefined && "originalSource" in entry ? entry.originalSource : frame.url
  const inModules = /node_modules\/(.*)$/.exec(original)
  if (inModules?.[1] !== undefined) return `node_modules/${inModules[1]}`
  const inRepo = /\/(src|bin|dist)\/(.*)$/.exec(original)
  return inRepo === null ? original : `${inRepo[1]}/${inRepo[2]}`
}

/** Who owns a source: our code by folder, a package by name, Node, or V8 itself. */
const ownerOf = (source: string): string => {
  if (source.startsWith("(native) ")) return "(native) calls into Node's C++ (I/O, JSON, strings)"
  if (source.startsWith("(")) return source
  if (source.startsWith("node:internal/modules") || source.startsWith("node:internal/bootstrap")) return "node: loading modules"
  if (/^node:internal\/(deps\/undici|webstreams)/.test(source)) return "node: fetch (undici, web streams)"
  if (source.startsWith("node:")) return "node: other internals"
  const pkg = /^node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(source)?.[1]
  if (pkg !== undefined) return pkg
  const dir = /^src\/([^/]+)/.exec(source)?.[1]
  return dir === undefined ? source : `custom-agent src/${dir}`
}

const table = (title: string, totals: Map<string, number>, all: number, rows: number) => {
  console.log(`\n${title}`)
  for (const [key, us] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, rows)) {
    console.log(`  ${ms(us / 1e6).padStart(7)}  ${((us / all) * 100).toFixed(1).padStart(5)}%  ${key}`)
  }
}

export const run = async () => {
  printMachine("start")
  const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-profile-"))
  try {
    const runner = chainRunner(tempDir, await snapshotCli(tempDir))
    await runner.chainRun(STEPS)
    const profileDir = path.join(tempDir, "profile")
    const { result, inServer } = await runner.chainRun(STEPS, ["--cpu-prof", "--cpu-prof-dir", profileDir, "--cpu-prof-interval", String(INTERVAL_US)])
    const file = fs.readdirSync(profileDir).find((name) => name.endsWith(".cpuprofile"))
    if (file === undefined) throw new Error("node --cpu-prof wrote no profile")
    const profile: unknown = JSON.parse(fs.readFileSync(path.join(profileDir, file), "utf8"))
    if (!isCpuProfile(profile)) throw new Error(`${file} is not a CPU profile`)

    const maps = new Map<string, SourceMap | undefined>()
    const sources = new Map<number, string>(profile.nodes.map((node) => [node.id, sourceOf(node.callFrame, maps)]))
    const bySource = new Map<string, number>()
    const byOwner = new Map<string, number>()
    let all = 0
    profile.samples.forEach((id, i) => {
      const us = profile.timeDeltas[i] ?? 0
      const source = sources.get(id) ?? "(unknown)"
      all += us
      bySource.set(source, (bySource.get(source) ?? 0) + us)
      byOwner.set(ownerOf(source), (byOwner.get(ownerOf(source)) ?? 0) + us)
    })
    console.log(`one ${STEPS}-step chain under --cpu-prof (sampling every ${INTERVAL_US} µs; profiling slows it down):`)
    console.log(`  wall ${ms(result.wallSeconds)}, sampled ${ms(all / 1e6)}, of which the replay server answered for ${ms(inServer)} (the CLI idles then)`)
    table("self time by owner ((idle): waiting on the server or I/O; (program): V8 outside JS, e.g. compiling)", byOwner, all, 16)
    table("hottest sources (self time)", bySource, all, 25)
  } finally {
    fs.rmSync(tempDir, { recursive: true, force: true })
  }
  printMachine("end")
}
