import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { repoRoot } from "../support/cli.js"

const json = (file: string): Record<string, unknown> => {
  const parsed: unknown = JSON.parse(readFileSync(join(repoRoot, file), "utf8"))
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error(`${file} is not a JSON object`)
  return { ...parsed }
}

describe("the ACP agent registry manifest (acp-agent.json)", () => {
  it("has the registry's required fields and runs this package's release with `acp`", () => {
    const manifest = json("acp-agent.json")
    const pkg = json("package.json")
    expect(manifest["id"]).toMatch(/^[a-z][a-z0-9-]*$/)
    for (const field of ["name", "version", "description"]) expect(typeof manifest[field]).toBe("string")
    // Released together: the manifest names the version it runs.
    expect(manifest["version"]).toBe(pkg["version"])
    expect(manifest["license"]).toBe(pkg["license"])
    expect(manifest["distribution"]).toEqual({ npx: { package: `${String(pkg["name"])}@${String(pkg["version"])}`, args: ["acp"] } })
  })
})
