import { afterAll, afterEach, describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { passwordInUrl } from "../../src/cli/secret-arguments.js"
import { configuredToken, TOKEN_ENV } from "../../src/cli/token-source.js"
import { makeTemp } from "../support/temp-dirs.js"

const temp = makeTemp()
afterAll(temp.cleanup)
const saved = process.env[TOKEN_ENV]
afterEach(() => {
  if (saved === undefined) delete process.env[TOKEN_ENV]
  else process.env[TOKEN_ENV] = saved
})

describe("the server token's source", () => {
  it.effect("--token-file wins over the environment; its first line, trimmed", () =>
    Effect.gen(function* () {
      process.env[TOKEN_ENV] = "from-the-environment"
      const file = join(temp.dir("token-"), "token")
      writeFileSync(file, "  from-the-file  \nsecond line\n")
      expect(yield* configuredToken(Option.some(file))).toEqual(Option.some({ value: "from-the-file", source: "--token-file" }))
      expect(yield* configuredToken(Option.none())).toEqual(Option.some({ value: "from-the-environment", source: TOKEN_ENV }))
      process.env[TOKEN_ENV] = ""
      expect(yield* configuredToken(Option.none())).toEqual(Option.none())
    }))

  it.effect("a file that is not a regular one, too large, empty or missing is a usage error naming it", () =>
    Effect.gen(function* () {
      const dir = temp.dir("token-")
      writeFileSync(join(dir, "big"), "x".repeat(5000))
      writeFileSync(join(dir, "blank"), "\n\n")
      for (const [path, problem] of [
        [dir, "is not a regular file"],
        ["/dev/zero", "is not a regular file"],
        [join(dir, "big"), "is larger than 4096 bytes"],
        [join(dir, "blank"), "is empty"],
        [join(dir, "nothing"), "no such file"]
      ] as const) {
        const error = yield* Effect.flip(configuredToken(Option.some(path)))
        expect(error.exitCode, path).toBe(2)
        expect(error.message, path).toContain(problem)
      }
    }))
})

describe("a password in a database URL", () => {
  it("is found, so it can be warned about", () => {
    expect(passwordInUrl("postgres://user:pw@db:5432/agent")).toBe("pw")
    expect(passwordInUrl("postgres://user@db:5432/agent")).toBeUndefined()
    expect(passwordInUrl("not a url")).toBeUndefined()
  })
})
