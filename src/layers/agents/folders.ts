import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { type AgentDefinition, AgentNotFound, type AgentProblem, Agents, type AgentsShape } from "../../services/Agents.js"
import { projectRoot } from "../context/instructions-paths.js"
import { readTextPrefix } from "../context/instructions-read.js"
import { describeFsError, errnoCode } from "../tools/fs-errors.js"
import { formatBytes } from "../tools/format-bytes.js"
import { parseAgentFile } from "./agent-file.js"

export interface AgentsOptions {
  /** The user's config directory (see `resolveConfigDir`); its agents are in `agents/`. */
  readonly configDir: string
}

/** An agent file larger than this is refused: its body becomes a child's system instructions. */
export const AGENT_MAX_BYTES = 256 * 1024

interface AgentFolder {
  readonly folder: string
  readonly source: AgentDefinition["source"]
}

/** Where agents live, strongest first: `.agents` over `.claude`, the project over the user. */
const agentFolders = (cwd: string, configDir: string): Effect.Effect<ReadonlyArray<AgentFolder>> =>
  Effect.map(projectRoot(cwd), (root) => [
    { folder: path.join(root, ".agents", "agents"), source: "project" },
    { folder: path.join(root, ".claude", "agents"), source: "project" },
    { folder: path.join(path.resolve(configDir), "agents"), source: "user" }
  ])

type Found = { readonly _tag: "agent"; readonly agent: AgentDefinition; readonly folder: string } | { readonly _tag: "problem"; readonly problem: AgentProblem }

/** The `*.md` files directly in a folder, in name order; a missing folder has none. */
const agentFiles = (folder: string): Effect.Effect<{ readonly files: ReadonlyArray<string>; readonly problems: ReadonlyArray<AgentProblem> }> =>
  Effect.promise(async () => {
    try {
      const entries = await fs.readdir(folder, { withFileTypes: true })
      const files = entries
        .filter((entry) => (entry.isFile() || entry.isSymbolicLink()) && entry.name.endsWith(".md") && !entry.name.startsWith("."))
        .map((entry) => path.join(folder, entry.name))
        .sort()
      return { files, problems: [] }
    } catch (error) {
      const code = errnoCode(error)
      if (code === "ENOENT" || code === "ENOTDIR") return { files: [], problems: [] }
      return { files: [], problems: [{ path: folder, message: describeFsError("list", folder, error) }] }
    }
  })

const readAgent = (file: string, source: AgentDefinition["source"], folder: string): Effect.Effect<ReadonlyArray<Found>> =>
  readTextPrefix(file, AGENT_MAX_BYTES).pipe(
    Effect.map((read): ReadonlyArray<Found> => {
      if (read.truncated) return [{ _tag: "problem", problem: { path: file, message: `it is ${formatBytes(read.size)}, over the ${formatBytes(AGENT_MAX_BYTES)} limit` } }]
      return Either.match(parseAgentFile(read.text), {
        onLeft: (message) => [{ _tag: "problem", problem: { path: file, message } }],
        onRight: (parsed) => [{ _tag: "agent", folder, agent: { ...parsed, path: file, source } }]
      })
    }),
    Effect.catchAll((error) => Effect.succeed<ReadonlyArray<Found>>(error.missing ? [] : [{ _tag: "problem", problem: { path: file, message: error.message } }]))
  )

export const make = (options: AgentsOptions): AgentsShape => {
  const list: AgentsShape["list"] = (cwd) =>
    Effect.gen(function* () {
      const problems: Array<AgentProblem> = []
      const found: Array<Found> = []
      for (const { folder, source } of yield* agentFolders(cwd, options.configDir)) {
        const listed = yield* agentFiles(folder)
        problems.push(...listed.problems)
        found.push(...(yield* Effect.forEach(listed.files, (file) => readAgent(file, source, folder), { concurrency: 8 })).flat())
      }
      const byName = new Map<string, { readonly agent: AgentDefinition; readonly folder: string }>()
      for (const item of found) {
        if (item._tag === "problem") {
          problems.push(item.problem)
          continue
        }
        const winner = byName.get(item.agent.name)
        if (winner === undefined) byName.set(item.agent.name, item)
        // Shadowing across folders is how a project overrides a user's agent; within one folder it is a mistake.
        else if (winner.folder === item.folder) {
          problems.push({ path: item.agent.path, message: `agent name "${item.agent.name}" is already used by ${winner.agent.path}; this one is ignored` })
        }
      }
      const agents = [...byName.values()].map((entry) => entry.agent).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      return { agents, problems }
    }).pipe(Effect.withSpan("Agents.list"))

  const get: AgentsShape["get"] = (cwd, name) =>
    Effect.flatMap(list(cwd), ({ agents }) => {
      const agent = agents.find((candidate) => candidate.name === name)
      if (agent !== undefined) return Effect.succeed(agent)
      const known = agents.map((candidate) => candidate.name)
      return Effect.fail(
        new AgentNotFound({ name, message: `no agent named "${name}"; ${known.length === 0 ? "no agents are defined" : `the agents are: ${known.join(", ")}`}` })
      )
    })

  return { list, get }
}

export const layer = (options: AgentsOptions) => Layer.succeed(Agents, make(options))
