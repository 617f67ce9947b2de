import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { makeTool } from "../../../src/layers/tools/make-tool.js"
import { localTools } from "../../../src/layers/tools/local.js"
import { sandboxOff } from "../../../src/layers/sandbox/off.js"
import { readFileTool } from "../../../src/layers/tools/read-file.js"
import { contextFor } from "./workspace-fixture.js"

const echo = makeTool({
  name: "echo",
  description: "Echoes",
  input: Schema.Struct({
    text: Schema.String.annotations({ description: "What to echo." }),
    times: Schema.optionalWith(Schema.Number.pipe(Schema.int(), Schema.between(1, 5)), { exact: true })
  }),
  prepare: (input) =>
    Effect.succeed({
      risk: "read" as const,
      summary: `echo ${input.text}`,
      paths: [],
      outsideWorkspace: false,
      execute: Effect.succeed({ output: input.text.repeat(input.times ?? 1), isError: false })
    })
})

describe("makeTool", () => {
  it("derives the model's JSON Schema from the effect Schema, descriptions included", () => {
    expect(echo.definition).toEqual({
      name: "echo",
      description: "Echoes",
      inputSchema: {
        type: "object",
        required: ["text"],
        properties: {
          text: { type: "string", description: "What to echo." },
          times: { type: "integer", description: "a number between 1 and 5", minimum: 1, maximum: 5 }
        },
        additionalProperties: false
      }
    })
  })

  it.effect("decodes valid input and hands it to prepare", () =>
    Effect.gen(function* () {
      const call = yield* echo.prepare({ text: "ab", times: 2 }, contextFor("/tmp"))
      expect(call.summary).toBe("echo ab")
      expect((yield* call.execute).output).toBe("abab")
    }))

  it.effect("a missing field is a ToolInputError naming it", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(echo.prepare({}, contextFor("/tmp")))
      expect(error._tag).toBe("ToolInputError")
      expect(error.message).toBe("text: is missing")
    }))

  it.effect("every bad field is listed once, with what was expected", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(echo.prepare({ text: 3, times: 9 }, contextFor("/tmp")))
      expect(error.message).toContain("text: Expected string, actual 3")
      expect(error.message).toMatch(/times: .*9/)
      expect(error.message.match(/times:/g)).toHaveLength(1)
    }))

  it.effect("an unknown field and a non-object input are refused", () =>
    Effect.gen(function* () {
      const extra = yield* Effect.flip(echo.prepare({ text: "a", txet: "b" }, contextFor("/tmp")))
      expect(extra.message).toContain("txet")
      const notObject = yield* Effect.flip(echo.prepare("text", contextFor("/tmp")))
      expect(notObject.message).toContain("input:")
    }))

  it.effect("a real tool reports a wrong type by field name", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(readFileTool.prepare({ path: "a.txt", offset: "ten" }, contextFor("/tmp")))
      expect(error._tag).toBe("ToolInputError")
      expect(error.message).toContain("offset")
    }))
})

describe("localTools", () => {
  it("holds the six local tools under their exact, unique names", () => {
    const names = localTools(sandboxOff).map((tool) => tool.definition.name)
    expect(names).toEqual(["read_file", "write_file", "edit_file", "list_files", "grep", "shell"])
  })

  it("gives every parameter of every tool a description", () => {
    for (const tool of localTools(sandboxOff)) {
      const properties = tool.definition.inputSchema["properties"]
      if (typeof properties !== "object" || properties === null) throw new Error(`${tool.definition.name} has no properties`)
      for (const [name, property] of Object.entries(properties)) {
        expect(property, `${tool.definition.name}.${name}`).toHaveProperty("description")
      }
    }
  })
})
