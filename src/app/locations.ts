import { homedir } from "node:os"
import { join, resolve } from "node:path"

/**
 * Where sessions live: `--data-dir`, else `CUSTOM_AGENT_HOME`, else `$XDG_DATA_HOME/custom-agent`,
 * else `~/.local/share/custom-agent`. Created on first use by the store layers.
 */
export const resolveDataDir = (flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string => {
  if (flag !== undefined && flag !== "") return resolve(flag)
  const home = env["CUSTOM_AGENT_HOME"]
  if (home !== undefined && home !== "") return resolve(home)
  const xdg = env["XDG_DATA_HOME"]
  if (xdg !== undefined && xdg !== "") return join(resolve(xdg), "custom-agent")
  return join(homedir(), ".local", "share", "custom-agent")
}

export type StoreKind = "sqlite" | "jsonl"

export const sqliteFile = (dataDir: string) => join(dataDir, "custom-agent.db")
export const jsonlDirectory = (dataDir: string) => join(dataDir, "sessions")

/**
 * The user's configuration (rules, instructions, skills, MCP servers): `CUSTOM_AGENT_CONFIG_HOME`,
 * else `$XDG_CONFIG_HOME/custom-agent`, else `~/.config/custom-agent`.
 */
export const resolveConfigDir = (env: NodeJS.ProcessEnv = process.env): string => {
  const own = env["CUSTOM_AGENT_CONFIG_HOME"]
  if (own !== undefined && own !== "") return resolve(own)
  const xdg = env["XDG_CONFIG_HOME"]
  if (xdg !== undefined && xdg !== "") return join(resolve(xdg), "custom-agent")
  return join(homedir(), ".config", "custom-agent")
}

/**
 * Claude Code's own user folder, whose `commands/` this agent reads too: `CLAUDE_CONFIG_DIR`
 * (where Claude Code moves it), else `~/.claude`.
 */
export const resolveClaudeDir = (env: NodeJS.ProcessEnv = process.env): string => {
  const moved = env["CLAUDE_CONFIG_DIR"]
  if (moved !== undefined && moved !== "") return resolve(moved)
  return join(env["HOME"] ?? homedir(), ".claude")
}

export const userPermissionsFile = (configDir: string) => join(configDir, "permissions.json")
export const approvalsFile = (dataDir: string) => join(dataDir, "approvals.json")
/** Project rules files a person trusted, by content hash. */
export const trustFile = (dataDir: string) => join(dataDir, "trusted-projects.json")
export const memoryFile = (dataDir: string) => join(dataDir, "memory.json")
