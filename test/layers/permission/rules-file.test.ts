import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { decodeRules } from "../../../src/layers/permission/rules-file.js"

describe("decodeRules", () => {
  it.effect("takes rules whose globs can be matched", () =>
    Effect.gen(function* () {
      const rules = yield* decodeRules("p.json", { rules: [{ tool: "mcp__*", decision: "allow" }, { tool: "write_file", path: "src/**/*.{ts,tsx}", decision: "deny" }] })
      expect(rules).toHaveLength(2)
    }))

  it.effect("refuses the file when a glob cannot be matched in linear time, naming the rule and the field", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(decodeRules("p.json", { rules: [{ tool: "read_file", decision: "deny", path: "!(public)/**" }, { tool: "@(a|b", decision: "deny" }] }))
      expect(error.message).toBe("p.json: rules.0.path: not a usable glob: negated groups !(…) are not supported; rules.1.tool: not a usable glob: unclosed group at 1")
    }))
})
