import type { Skill, SkillProblem } from "../../services/Skills.js"

/** Why a name matched no skill: what exists instead, and which SKILL.md files were skipped as broken. */
export const describeMissingSkill = (
  name: string,
  listing: { readonly skills: ReadonlyArray<Skill>; readonly problems: ReadonlyArray<SkillProblem> }
): string => {
  const known = listing.skills.map((s) => s.name)
  const parts = [`no skill named "${name}"`, known.length === 0 ? "no skills are installed" : `known skills: ${known.join(", ")}`]
  if (listing.problems.length > 0) {
    parts.push(`skipped as unreadable or malformed: ${listing.problems.map((p) => `${p.path} (${p.message})`).join(", ")}`)
  }
  return parts.join("; ")
}
