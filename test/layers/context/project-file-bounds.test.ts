import { describe, expect, it } from "@effect/vitest"
import { Effect, Logger } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as AgentFolders from "../../../src/layers/agents/folders.js"
import { discoverInstructions } from "../../../src/layers/context/instructions.js"
import { refusedProjectFile } from "../../../src/layers/context/project-file-bounds.js"
import { fixedPlaces, privatePlaces } from "../../../src/layers/private-places.js"
import * as SkillFolders from "../../../src/layers/skills/folders.js"
import { tempOutside, tempWorkspace, writeFiles } from "../tools/workspace-fixture.js"

const linux = process.platform === "linux"
const symlink = (target: string, at: string) => Effect.promise(() => fs.symlink(target, at))
const skillMd = (name: string, description: string) => `---\nname: ${name}\ndescription: ${description}\n---\nbody of ${name}\n`

/** Runs `effect`, collecting the text of every warning it logs. */
const withWarnings = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const warnings: Array<string> = []
    const collect = Logger.make(({ logLevel, message }) => {
      if (logLevel._tag === "Warning") warnings.push(Array.isArray(message) ? message.map(String).join(" ") : String(message))
    })
    const result = yield* Effect.provide(effect, Logger.add(collect))
    return { result, warnings }
  })

/**
 * A repository `repo/` (with `.git`) whose workspace is `repo/pkg`, a fake home `home/` with a
 * credential store, and a config directory: the loaders' world.
 */
const world = Effect.gen(function* () {
  const base = yield* tempWorkspace
  const configDir = yield* tempOutside
  const repo = path.join(base, "repo")
  const ws = path.join(repo, "pkg")
  yield* writeFiles(base, {
    "repo/.git/HEAD": "ref: refs/heads/main\n",
    "repo/.env": "REPO-SECRET\n",
    "repo/pkg/package.json": "{}\n",
    "home/.ssh/id_rsa": "KEY-SECRET\n"
  })
  return { base, repo, ws, configDir, home: path.join(base, "home") }
})

describe("a project's instruction files, skills and agents lie inside the workspace", () => {
  it.scoped("an instruction file linked to the repository above the workspace is skipped with a warning naming it; the workspace's own and the repository's own still read", () =>
    Effect.gen(function* () {
      const { repo, ws, configDir } = yield* world
      yield* writeFiles(repo, { "AGENTS.md": "the repository's own", "pkg/notes.md": "notes in the workspace" })
      yield* symlink("../.env", path.join(ws, "AGENTS.md"))
      yield* symlink("notes.md", path.join(ws, "CLAUDE.md"))
      // Above the workspace, a link is never the folder's own file.
      yield* symlink(".env", path.join(repo, "CLAUDE.md"))
      const { result, warnings } = yield* withWarnings(discoverInstructions({ cwd: ws, configDir }))
      expect(result.map((file) => file.text)).toEqual(["the repository's own", "notes in the workspace"])
      expect(JSON.stringify(result)).not.toContain("REPO-SECRET")
      expect(warnings).toEqual([
        expect.stringContaining(`${path.join(repo, "CLAUDE.md")} leads outside the workspace`),
        expect.stringContaining(`${path.join(ws, "AGENTS.md")} leads outside the workspace`)
      ])
    }))

  it.scoped("a CLAUDE.md linked to the AGENTS.md beside it is read once, without a warning, above the workspace too", () =>
    Effect.gen(function* () {
      const { repo, ws, configDir } = yield* world
      yield* writeFiles(repo, { "AGENTS.md": "root", "pkg/AGENTS.md": "pkg" })
      yield* symlink("AGENTS.md", path.join(repo, "CLAUDE.md"))
      yield* symlink("AGENTS.md", path.join(ws, "CLAUDE.md"))
      const { result, warnings } = yield* withWarnings(discoverInstructions({ cwd: ws, configDir }))
      expect(result.map((file) => file.text)).toEqual(["root", "pkg"])
      expect(warnings).toEqual([])
    }))

  it.scoped("a link into a private place is refused though the workspace holds it (a workspace that is the home)", () =>
    Effect.gen(function* () {
      const { home, configDir } = yield* world
      yield* writeFiles(home, { ".git/HEAD": "ref: refs/heads/main\n" })
      yield* symlink(".ssh/id_rsa", path.join(home, "AGENTS.md"))
      yield* writeFiles(home, { ".agents/skills/ok/SKILL.md": skillMd("ok", "fine") })
      yield* Effect.promise(() => fs.mkdir(path.join(home, ".agents", "skills", "keys")))
      yield* symlink("../../../.ssh/id_rsa", path.join(home, ".agents", "skills", "keys", "SKILL.md"))
      const places = privatePlaces({ home, configDir })
      const { result, warnings } = yield* withWarnings(discoverInstructions({ cwd: home, configDir, privatePlaces: fixedPlaces(places) }))
      expect(result).toEqual([])
      expect(warnings.join("\n")).toContain("leads into the credential store ~/.ssh")
      const skills = yield* SkillFolders.make({ configDir, privatePlaces: fixedPlaces(places) }).list(home)
      expect(skills.skills.map((skill) => skill.name)).toEqual(["ok"])
      expect(skills.problems.map((problem) => problem.message).join("\n")).toContain("leads into the credential store ~/.ssh")
      expect(JSON.stringify(skills)).not.toContain("KEY-SECRET")
    }))

  it.scoped("a workspace inside a private place reads its own files (the person chose to work there)", () =>
    Effect.gen(function* () {
      const { home, configDir } = yield* world
      const ws = path.join(home, ".ssh")
      yield* writeFiles(ws, { "AGENTS.md": "notes about keys" })
      const found = yield* discoverInstructions({ cwd: ws, configDir, privatePlaces: fixedPlaces(privatePlaces({ home, configDir })) })
      expect(found.map((file) => file.text)).toEqual(["notes about keys"])
    }))

  it.scoped("a skill folder or an agent file at the repository's root linked elsewhere in the repository is refused; the repository's own are read", () =>
    Effect.gen(function* () {
      const { repo, ws, configDir } = yield* world
      yield* writeFiles(repo, {
        "shared/borrowed/SKILL.md": skillMd("borrowed", "REPO-SECRET from elsewhere in the repository"),
        "shared/agent.md": skillMd("borrowed-agent", "REPO-SECRET agent"),
        ".agents/skills/own/SKILL.md": skillMd("own", "the repository's own skill"),
        ".claude/agents/own.md": skillMd("own-agent", "the repository's own agent"),
        "pkg/skills/inside/SKILL.md": skillMd("inside", "a skill in the workspace")
      })
      yield* symlink(path.join(repo, "shared", "borrowed"), path.join(repo, ".agents", "skills", "borrowed"))
      yield* symlink(path.join(ws, "skills", "inside"), path.join(repo, ".agents", "skills", "inside"))
      yield* symlink(path.join(repo, "shared", "agent.md"), path.join(repo, ".claude", "agents", "borrowed.md"))
      const skills = yield* SkillFolders.make({ configDir }).list(ws)
      expect(skills.skills.map((skill) => skill.name)).toEqual(["inside", "own"])
      expect(skills.problems.map((problem) => problem.message)).toEqual([expect.stringContaining("leads outside the workspace")])
      const loaded = yield* Effect.flip(SkillFolders.make({ configDir }).load(ws, "borrowed"))
      expect(loaded.message).not.toContain("REPO-SECRET")
      const agents = yield* AgentFolders.make({ configDir }).list(ws)
      expect(agents.agents.map((agent) => agent.name)).toEqual(["own-agent"])
      expect(JSON.stringify(agents)).not.toContain("REPO-SECRET")
    }))

  it.scoped("the user's own files in the config directory (itself a private place) are read as before, links and all", () =>
    Effect.gen(function* () {
      const { repo, ws, configDir, home } = yield* world
      yield* writeFiles(configDir, { "shared.md": "the user's instructions", "agents/mine.md": skillMd("mine", "the user's agent") })
      yield* symlink(path.join(configDir, "shared.md"), path.join(configDir, "AGENTS.md"))
      yield* writeFiles(repo, { "elsewhere/SKILL.md": skillMd("users-linked", "linked by the user") })
      yield* Effect.promise(() => fs.mkdir(path.join(configDir, "skills")))
      yield* symlink(path.join(repo, "elsewhere"), path.join(configDir, "skills", "users-linked"))
      const places = privatePlaces({ home, configDir })
      const found = yield* discoverInstructions({ cwd: ws, configDir, privatePlaces: fixedPlaces(places) })
      expect(found.map((file) => [file.scope, file.text])).toEqual([["user", "the user's instructions"]])
      const skills = yield* SkillFolders.make({ configDir, privatePlaces: fixedPlaces(places) }).list(ws)
      expect(skills.skills.map((skill) => [skill.name, skill.source])).toEqual([["users-linked", "user"]])
      const agents = yield* AgentFolders.make({ configDir, privatePlaces: fixedPlaces(places) }).list(ws)
      expect(agents.agents.map((agent) => [agent.name, agent.source])).toEqual([["mine", "user"]])
    }))

  it.scoped("broken links are nothing; a link loop is a problem named; a fifo and an oversized agent are refused without blocking", () =>
    Effect.gen(function* () {
      const { ws, configDir } = yield* world
      yield* symlink("missing.md", path.join(ws, "AGENTS.md"))
      yield* symlink("CLAUDE.md", path.join(ws, "CLAUDE.md"))
      const { result, warnings } = yield* withWarnings(discoverInstructions({ cwd: ws, configDir }))
      expect(result).toEqual([])
      expect(warnings).toEqual([expect.stringContaining(path.join(ws, "CLAUDE.md"))])
      yield* Effect.promise(() => fs.mkdir(path.join(ws, ".agents", "agents"), { recursive: true }))
      yield* writeFiles(ws, { ".agents/agents/huge.md": `${skillMd("huge", "too big")}${"x".repeat(300 * 1024)}` })
      // A fifo is no definition file; a definition that is a link to one is opened without waiting and refused.
      if (linux) {
        execFileSync("mkfifo", [path.join(ws, "pipe")])
        yield* symlink("../../pipe", path.join(ws, ".agents", "agents", "pipe.md"))
      }
      // The workspace as its own repository, so its .agents folder is the one looked in.
      yield* writeFiles(ws, { ".git/HEAD": "ref: refs/heads/main\n" })
      const agents = yield* AgentFolders.make({ configDir }).list(ws)
      expect(agents.agents).toEqual([])
      const problems = agents.problems.map((problem) => problem.message).join("\n")
      expect(problems).toContain("over the")
      if (linux) expect(problems).toContain("not a regular file")
    }), 10_000)

  it("the rule on its own: inside, the folder's own through no link, else refused", () => {
    const bounds = { workspaceRoot: "/r/ws", lookedIn: "/r", privatePlaces: [{ path: "/r/ws/.keys", what: "the credential store ~/.keys" }] }
    expect(refusedProjectFile("/r/ws/AGENTS.md", "/r/ws/AGENTS.md", bounds)).toBeUndefined()
    expect(refusedProjectFile("/r/AGENTS.md", "/r/AGENTS.md", bounds)).toBeUndefined()
    expect(refusedProjectFile("/r/ws/AGENTS.md", "/r/.env", bounds)).toContain("leads outside the workspace (to /r/.env)")
    expect(refusedProjectFile("/r/AGENTS.md", "/r/other/x.md", bounds)).toContain("leads outside the workspace")
    expect(refusedProjectFile("/r/ws/AGENTS.md", "/r/ws/.keys/id", bounds)).toContain("leads into the credential store ~/.keys")
  })
})
