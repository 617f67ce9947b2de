import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { Script } from "../../src/layers/model/scripted.js"

/**
 * A project with a `reviewer` agent definition and a script whose parent delegates to it once
 * ("review it") and answers "Reviewed." after the reviewer's "Looks fine.": one run makes a
 * session with one subagent's session. `dir` makes each folder (a temp-dirs maker).
 */
export const reviewerProject = (dir: (prefix: string) => string, prefix: string) => {
  const home = dir(`${prefix}-home-`)
  const project = dir(`${prefix}-project-`)
  mkdirSync(join(project, ".agents", "agents"), { recursive: true })
  writeFileSync(join(project, ".agents", "agents", "reviewer.md"), "---\nname: reviewer\ndescription: Reviews\n---\nYou review.\n")
  const script = join(project, "script.json")
  const plan: Script = {
    responses: [{ chunks: [{ toolCall: { name: "task", input: { agent: "reviewer", prompt: "review it" } } }] }, "Reviewed."],
    agents: { reviewer: { responses: ["Looks fine."] } }
  }
  writeFileSync(script, JSON.stringify(plan))
  const env = { CUSTOM_AGENT_HOME: home, CUSTOM_AGENT_CONFIG_HOME: dir(`${prefix}-config-`) }
  return { home, project, script, env }
}
