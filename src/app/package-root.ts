import { existsSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

/** The installed package's root (where package.json and dist/ live), from wherever this module runs. */
export const packageRoot = (from: string = dirname(fileURLToPath(import.meta.url))): string => {
  let dir = from
  for (;;) {
    const candidate = join(dir, "package.json")
    if (existsSync(candidate)) {
      const pkg: unknown = JSON.parse(readFileSync(candidate, "utf8"))
      if (typeof pkg === "object" && pkg !== null && "name" in pkg && pkg.name === "custom-agent") return dir
    }
    const parent = dirname(dir)
    if (parent === dir) return from
    dir = parent
  }
}

export const webRoot = () => join(packageRoot(), "dist", "web")

/** This package's version, from its package.json. */
export const packageVersion = (): string => {
  const pkg: unknown = JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8"))
  return typeof pkg === "object" && pkg !== null && "version" in pkg && typeof pkg.version === "string" ? pkg.version : "0.0.0"
}
