import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as path from "node:path"
import type { Skill, SkillsShape } from "../../services/Skills.js"
import { type Tool, ToolInputError, type ToolSource } from "../../services/ToolRouter.js"
import { makeTool } from "../tools/make-tool.js"
import { staticSource } from "../tools/router.js"
import { errorResult, okResult } from "../tools/tool-results.js"
import { describeMissingSkill } from "./not-found.js"

export const LOAD_SKILL_TOOL = "load_skill"

const LoadSkillInput = Schema.Struct({
  name: Schema.String.annotations({ description: "The skill's name, exactly as the skills catalogue lists it." })
})

/**
 * `load_skill`: gives the model a catalogued skill's instructions. The call names a skill,
 * not a path, and only catalogued SKILL.md files are read, so it is a plain read with no
 * paths for the workspace boundary: a user skill loads without a question. Files the skill
 * points to are read with read_file, where the usual permissions apply. The session's
 * workspace root is the cwd skills are discovered from.
 */
export const loadSkillTool = (skills: SkillsShape): Tool =>
  makeTool({
    name: LOAD_SKILL_TOOL,
    description:
      "Load the full instructions of a skill from the skills catalogue. Call it before working on a task " +
      "that matches a skill's description, then follow the instructions. Files a skill mentions are relative " +
      "to its folder; read them with read_file.",
    input: LoadSkillInput,
    prepare: (input, ctx) =>
      Effect.gen(function* () {
        const listing = yield* skills.list(ctx.workspaceRoot)
        const skill = listing.skills.find((s) => s.name === input.name)
        if (skill === undefined) return yield* new ToolInputError({ message: describeMissingSkill(input.name, listing) })
        return {
          risk: "read" as const,
          summary: `load skill ${skill.name} (${skill.source})`,
          paths: [],
          outsideWorkspace: false,
          execute: skills.load(ctx.workspaceRoot, skill.name).pipe(
            Effect.match({
              onFailure: (error) => errorResult(error.message),
              onSuccess: ({ skill: loaded, body }) =>
                okResult(render(loaded, body), { _tag: "skill", name: loaded.name, path: loaded.path })
            })
          )
        }
      })
  })

/** The body under a header that says where the skill lives and how to reach its files. */
const render = (skill: Skill, body: string): string => {
  const folder = path.dirname(skill.path)
  return [
    `Skill "${skill.name}" (${skill.source} skill, folder ${folder})`,
    `Paths this skill mentions are relative to ${folder}; read those files with read_file using the full path.`,
    "",
    body === "" ? "(This skill has no instructions beyond its description.)" : body
  ].join("\n")
}

/** The skills' tools as a ToolRouter source. */
export const skillsToolSource = (skills: SkillsShape): ToolSource => staticSource("skills", [loadSkillTool(skills)])
