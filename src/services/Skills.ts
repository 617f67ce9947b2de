import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

export interface Skill {
  readonly name: string
  readonly description: string
  /** The SKILL.md file; files it mentions are relative to its folder. */
  readonly path: string
  readonly source: "project" | "user"
}

export interface SkillProblem {
  readonly path: string
  readonly message: string
}

export class SkillNotFound extends Schema.TaggedError<SkillNotFound>()("SkillNotFound", {
  name: Schema.String,
  message: Schema.String
}) {}

/**
 * Skills: folders with a SKILL.md (YAML front matter `name`, `description`, then
 * instructions). Only names and descriptions enter the context; a body is loaded on demand.
 * A malformed SKILL.md is reported and skipped, never fatal.
 */
export interface SkillsShape {
  readonly list: (cwd: string) => Effect.Effect<{ readonly skills: ReadonlyArray<Skill>; readonly problems: ReadonlyArray<SkillProblem> }>
  readonly load: (cwd: string, name: string) => Effect.Effect<{ readonly skill: Skill; readonly body: string }, SkillNotFound>
}

export class Skills extends Context.Tag("custom-agent/Skills")<Skills, SkillsShape>() {}
