import { describe, expect, it } from "@effect/vitest"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"

/**
 * The engine stays a facade over small files, and docs/architecture.md's names stay true: the
 * files it names exist, a name it places "in" a file is in that file, and every
 * `SessionEngine.x` it names is an operation of the engine. Where this fails, fix the page or
 * the code (the page says the code is right).
 */
const root = join(import.meta.dirname, "..", "..")
const read = (path: string) => readFileSync(join(root, path), "utf8")
const doc = read("docs/architecture.md")
const facade = read("src/core/SessionEngine.ts")

// The facade's public types and their docs are most of it; its wiring is a few dozen lines.
const facadeLineLimit = 260

const sourceFiles = (dir: string): ReadonlyArray<string> =>
  readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sourceFiles(path)
    return /\.tsx?$/.test(entry.name) ? [path] : []
  })
const files = [...sourceFiles("src"), ...sourceFiles("web/src")]

/** A file the page names: a path from the repository's root, or a name found under src or web/src. */
const filesNamed = (name: string): ReadonlyArray<string> =>
  name.includes("/") ? (existsSync(join(root, name)) ? [name] : []) : files.filter((file) => file.endsWith(`/${name}`))

const matches = (pattern: RegExp): ReadonlyArray<RegExpExecArray> => [...doc.matchAll(pattern)]

describe("the engine's shape", () => {
  it(`SessionEngine.ts is a facade: at most ${facadeLineLimit} lines, and the concepts it wires live elsewhere`, () => {
    expect(facade.split("\n").length).toBeLessThanOrEqual(facadeLineLimit)
    // The actor map, the turn claim and a turn's admission each have a file of their own.
    for (const concept of ["RcMap", "FiberSet", "claimTurn", "const runClaimed =", "const runChild ="]) {
      expect(facade, concept).not.toContain(concept)
    }
  })

  it("every source file docs/architecture.md names exists", () => {
    const named = new Set(matches(/`((?:src|web|test|scripts)\/[\w\-./]+\.tsx?|[\w-]+\.tsx?)`/g).map((match) => match[1] ?? ""))
    expect(named.size).toBeGreaterThan(50)
    const missing = [...named].filter((name) => filesNamed(name).length === 0 && !existsSync(join(root, name)))
    expect(missing).toEqual([])
  })

  it("a name docs/architecture.md places in a file is in that file", () => {
    const placed = matches(/`([A-Za-z_][\w.]*)`(?:\s*\([^)]*\))? in `((?:src\/|web\/)?[\w\-/]+\.tsx?)`/g)
    expect(placed.length).toBeGreaterThan(40)
    const wrong = placed
      .map(([, name = "", file = ""]) => ({ name, file }))
      .filter(({ name, file }) => {
        const identifier = name.split(".").at(-1) ?? name
        return !filesNamed(file).some((path) => new RegExp(`\\b${identifier}\\b`).test(read(path)))
      })
    expect(wrong).toEqual([])
  })

  it("every SessionEngine operation docs/architecture.md names is one the engine has", () => {
    const operations = new Set(matches(/`SessionEngine\.(?!ts`)(\w+)`/g).map((match) => match[1] ?? ""))
    expect(operations.size).toBeGreaterThan(5)
    const unknown = [...operations].filter((name) => !new RegExp(`readonly ${name}:`).test(facade))
    expect(unknown).toEqual([])
  })
})
