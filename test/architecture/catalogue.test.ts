import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { resolve } from "node:path"
import { eventSchemas } from "../../src/domain/events.js"

const doc = resolve(import.meta.dirname, "../../docs/architecture.md")
const heading = "## Event catalogue"

/** The lines of the doc's section under `title`, up to the next section of the same level. */
const section = (text: string, title: string): ReadonlyArray<string> | undefined => {
  const lines = text.split("\n")
  const start = lines.findIndex((line) => line.trim() === title)
  if (start < 0) return undefined
  const rest = lines.slice(start + 1)
  const end = rest.findIndex((line) => line.startsWith("## "))
  return end < 0 ? rest : rest.slice(0, end)
}

/** Every event type the section documents: one list item per type, starting "- `type.name`". */
const documentedTypes = (lines: ReadonlyArray<string>) =>
  lines.flatMap((line) => {
    const match = /^- `([^`]+)`/.exec(line)
    return match?.[1] === undefined ? [] : [match[1]]
  })

describe("docs/architecture.md", () => {
  const lines = section(readFileSync(doc, "utf8"), heading)

  it("has an event catalogue section", () => {
    expect(lines).toBeDefined()
  })

  it("lists every event type of the domain's catalogue, and nothing else", () => {
    const documented = documentedTypes(lines ?? [])
    const catalogue = Object.keys(eventSchemas)
    expect({
      missing: catalogue.filter((type) => !documented.includes(type)),
      extra: documented.filter((type) => !Object.hasOwn(eventSchemas, type))
    }).toEqual({ missing: [], extra: [] })
  })

  it("lists each event type once", () => {
    const documented = documentedTypes(lines ?? [])
    expect(documented.filter((type, i) => documented.indexOf(type) !== i)).toEqual([])
  })
})
