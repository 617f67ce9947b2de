import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"

/**
 * A typed error made from a failure underneath keeps that failure as its `cause` (the Schema
 * errors as `Schema.Defect`), so whoever handles or logs it can see what happened, not only
 * the sentence made of it. Checked where the code builds one: a `new SomeError({...})` whose
 * fields say `messageOf(x)`, `String(error)` or `error.message` must also pass a `cause`.
 */

const root = join(import.meta.dirname, "..", "..")

const sourceFiles = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith(".ts") ? [path] : []
  })

/** The text of a constructor call's argument, from its `({` to the matching `})`. */
const argumentAt = (text: string, open: number): string => {
  let depth = 0
  for (let i = open; i < text.length; i++) {
    const char = text[i]
    if (char === "(") depth++
    else if (char === ")" && --depth === 0) return text.slice(open, i + 1)
  }
  return text.slice(open)
}

const flattened = (file: string): ReadonlyArray<string> => {
  const text = readFileSync(file, "utf8")
  return [...text.matchAll(/new ([A-Z][\w.]*)\(\{/g)].flatMap((match) => {
    const argument = argumentAt(text, (match.index ?? 0) + match[0].length - 2)
    if (!/messageOf\(|String\(error\)|\berror\.message\b/.test(argument) || /\bcause\b/.test(argument)) return []
    const line = text.slice(0, match.index).split("\n").length
    return [`${relative(root, file)}:${line} ${match[1]}`]
  })
}

describe("typed errors keep their cause", () => {
  it("every typed error built from a failure's message also carries the failure", () => {
    expect(sourceFiles(join(root, "src")).flatMap(flattened)).toEqual([])
  })
})
