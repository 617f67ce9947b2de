import { Command } from "@effect/cli"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { join, resolve } from "node:path"
import { resolveConfigDir } from "../../app/locations.js"
import * as SkillFolders from "../../layers/skills/folders.js"
import { Skills } from "../../services/Skills.js"
import { stderr, stdout } from "../io.js"
import * as shared from "../options.js"

const list = Command.make("list", { cwd: shared.projectToList }, (args) => {
  const configDir = resolveConfigDir()
  return Effect.gen(function* () {
    const skills = yield* Skills
    const dir = resolve(Option.getOrElse(args.cwd, () => process.cwd()))
    const found = yield* skills.list(dir)
    if (found.skills.length === 0) {
      yield* stdout(`no skills found (looked in the project's .agents/skills and .claude/skills, and in ${join(configDir, "skills")})\n`)
    }
    for (const skill of found.skills) {
      yield* stdout(`${skill.name} (${skill.source})\n  ${skill.description}\n  ${skill.path}\n`)
    }
    for (const problem of found.problems) yield* stderr(`${problem.path}: ${problem.message}\n`)
  }).pipe(Effect.provide(SkillFolders.layer({ configDir })))
}).pipe(Command.withDescription("List the skills of a project and of the user, and any SKILL.md that could not be read"))

export const skillsCommand = Command.make("skills").pipe(
  Command.withDescription("Skills: folders of instructions the model loads on demand"),
  Command.withSubcommands([list])
)
