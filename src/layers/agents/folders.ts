import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import type { Dirent } from "node:fs"
import * as path from "node:path"
import { type AgentDefinition, AgentNotFound, type AgentProblem, Agents, type AgentsShape } from "../../services/Agents.js"
import { projectRoot } from "../context/instructions-paths.js"
import { readTextPrefix } from "../context/instructions-read.js"
import type { ProjectFileBounds } from "../context/project-file-bounds.js"
import { currentHome, fixedPlaces, type PlacesNow, privatePlaces } from "../private-places.js"
import { collectDefinitions, type FoundDefinition, unreadableDefinition } from "../definition-folders.js"
import { formatBytes } from "../tools/format-bytes.js"
import { parseAgentFile } from "./agent-file.js"

export interface AgentsOptions {
  /** The user's config directory (see `resolveConfigDir`); its agents are in `agents/`. */
  readonly configDir: string
  /**
   * Where a project's agent file may never lead (private-places.ts). Default: the config
   * directory and the secret stores of this home; the agent passes its whole list.
   */
  readonly privatePlaces?: PlacesNow
}

/** An agent file larger than this is refused: its body becomes a child's system instructions. */
export const AGENT_MAX_BYTES = 256 * 1024

/** Where agents live, strongest first: `.agents` over `.claude`, the project over the user. */
const agentFolders = (
  cwd: string,
  configDir: string,
  places: PlacesNow
): Effect.Effect<ReadonlyArray<{ readonly folder: string; readonly source: AgentDefinition["source"]; readonly project?: ProjectFileBounds }>> =>
  Effect.zipWith(projectRoot(cwd), places, (root, current) => {
    // A project's definitions are read only from inside the workspace, or as the repository holds them (a link out is refused).
    const project: ProjectFileBounds = { workspaceRoot: cwd, lookedIn: root, privatePlaces: current }
    return [
      { folder: path.join(root, ".agents", "agents"), source: "project", project },
      { folder: path.join(root, ".claude", "agents"), source: "project", project },
      { folder: path.join(path.resolve(configDir), "agents"), source: "user" }
    ]
  })

/** One `*.md` file per agent, directly in the folder. */
const agentFile = (entry: Dirent, folder: string) =>
  (entry.isFile() || entry.isSymbolicLink()) && entry.name.endsWith(".md") ? path.join(folder, entry.name) : undefined

const readAgent = (
  file: string,
  source: AgentDefinition["source"],
  folder: string,
  project: ProjectFileBounds | undefined
): Effect.Effect<ReadonlyArray<FoundDefinition<AgentDefinition>>> =>
  readTextPrefix(file, AGENT_MAX_BYTES, project).pipe(
    Effect.map((read): ReadonlyArray<FoundDefinition<AgentDefinition>> => {
      if (read.truncated) return [{ _tag: "problem", problem: { path: file, message: `it is ${formatBytes(read.size)}, over the ${formatBytes(AGENT_MAX_BYTES)} limit` } }]
      return Either.match(parseAgentFile(read.text), {
        onLeft: (message) => [{ _tag: "problem", problem: { path: file, message } }],
        onRight: (parsed) => [{ _tag: "definition", folder, definition: { ...parsed, path: file, source } }]
      })
    }),
    Effect.catchAll(unreadableDefinition<AgentDefinition>(file))
  )

/**
 * Why there is no agent of that name, naming the files that could not be read and their
 * fault: the one meant is often among them, and "no agents are defined" would hide it.
 */
const notFound = (name: string, agents: ReadonlyArray<AgentDefinition>, problems: ReadonlyArray<AgentProblem>): string => {
  const known = agents.map((candidate) => candidate.name)
  const head = `no agent named "${name}"; ${known.length === 0 ? (problems.length === 0 ? "no agents are defined" : "no agent definition can be used") : `the agents are: ${known.join(", ")}`}`
  if (problems.length === 0) return head
  // The file named like the agent first: most likely the definition that was meant.
  const likely = (problem: AgentProblem) => path.basename(problem.path, ".md") === name
  const ordered = [...problems.filter(likely), ...problems.filter((problem) => !likely(problem))]
  const listed = ordered.map((problem) => `${problem.path}: ${problem.message}`)
  return `${head}; ${problems.length === 1 ? "this definition cannot be used" : "these definitions cannot be used"}: ${listed.join("; ")}`
}

export const make = (options: AgentsOptions): AgentsShape => {
  const places = options.privatePlaces ?? fixedPlaces(privatePlaces({ home: currentHome(), configDir: options.configDir }))
  const list: AgentsShape["list"] = (cwd) =>
    Effect.gen(function* () {
      const { definitions, problems } = yield* collectDefinitions("agent", yield* agentFolders(cwd, options.configDir, places), agentFile, (file, at) =>
        readAgent(file, at.source, at.folder, at.project)
      )
      return { agents: definitions, problems }
    }).pipe(Effect.withSpan("Agents.list"))

  const get: AgentsShape["get"] = (cwd, name) =>
    Effect.flatMap(list(cwd), ({ agents, problems }) => {
      const agent = agents.find((candidate) => candidate.name === name)
      if (agent !== undefined) return Effect.succeed(agent)
      return Effect.fail(new AgentNotFound({ name, message: notFound(name, agents, problems) }))
    })

  return { list, get }
}

export const layer = (options: AgentsOptions) => Layer.succeed(Agents, make(options))
