import type { Skill } from "../../services/Skills.js"
import { LOAD_SKILL_TOOL } from "./load-skill-tool.js"

/**
 * The skills catalogue for the system context: a line saying how to use it, then one line
 * per skill (`- name: description`). Empty when there are no skills, so a caller can leave
 * the section out. Bodies never enter here; the model loads one with `load_skill`.
 */
export const catalogue = (skills: ReadonlyArray<Pick<Skill, "name" | "description">>): string =>
  skills.length === 0
    ? ""
    : [
        `Skills: specialised instructions for particular tasks. When a task matches a skill's description, call ${LOAD_SKILL_TOOL} with its name and follow what it says.`,
        ...skills.map((skill) => `- ${skill.name}: ${skill.description}`)
      ].join("\n")
