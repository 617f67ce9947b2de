import { createHash } from "node:crypto"

/** Providers accept tool names of at most 64 characters from [a-zA-Z0-9_-]. */
const MAX_NAME = 64
const HASH_CHARS = 8

const sanitize = (text: string) => text.replace(/[^a-zA-Z0-9_-]/g, "_")

/**
 * The model-facing name of a server's tool: `mcp__<server>__<tool>`, sanitized to
 * [a-zA-Z0-9_-] and at most 64 characters. It depends on the two names alone, so it never
 * changes with what else the server lists (permission rules keep matching). A tool name that
 * had to be changed or shortened gets a short hash of the original, so two tools that would
 * read the same after sanitizing (`get.item`, `get_item`) keep distinct names.
 */
export const modelToolName = (server: string, tool: string): string => {
  const name = `mcp__${sanitize(server)}__${sanitize(tool)}`
  if (name.length <= MAX_NAME && sanitize(tool) === tool) return name
  const hash = createHash("sha256").update(`${server}\u0000${tool}`).digest("hex").slice(0, HASH_CHARS)
  return `${name.slice(0, MAX_NAME - HASH_CHARS - 1)}_${hash}`
}

/** What every tool name of a server begins with (before shortening): `mcp__<server>__`. */
export const serverToolPrefix = (server: string): string => `mcp__${sanitize(server)}__`

/**
 * Whether two servers' tool names could be confused, one's reading as the other's (`a` and
 * `a__b`: `mcp__a__b__x`), so that a rule written for one's tools would match the other's.
 */
export const toolNamesOverlap = (a: string, b: string): boolean => {
  const [x, y] = [serverToolPrefix(a), serverToolPrefix(b)]
  return x.startsWith(y) || y.startsWith(x)
}
