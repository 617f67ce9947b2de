import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { COMMAND_FILES_MAX } from "../../../src/layers/commands/command-files.js"
import * as CommandFolders from "../../../src/layers/commands/folders.js"
import { skillTree } from "../skills/skill-fixture.js"
import { tempOutside, writeFiles } from "../tools/workspace-fixture.js"

/** A repository (cwd `repo/packages/app`), the user's config directory and Claude Code's user folder. */
const commandTree = (project: Record<string, string>, user: Record<string, string> = {}, claude: Record<string, string> = {}) =>
  Effect.gen(function* () {
    const tree = yield* skillTree(project, user)
    const claudeDir = yield* tempOutside
    yield* writeFiles(claudeDir, claude)
    return { ...tree, claudeDir, commands: CommandFolders.make({ configDir: tree.configDir, claudeDir }) }
  })

const messages = (problems: ReadonlyArray<{ readonly path: string; readonly message: string }>) => problems.map((p) => `${path.basename(p.path)}: ${p.message}`)

describe("slash commands from folders", () => {
  it.scoped("reads Claude Code's format: optional front matter, the file name as the name, subfolders as a namespace label", () =>
    Effect.gen(function* () {
      const { repo, commands, cwd } = yield* commandTree({
        ".claude/commands/review.md":
          "---\ndescription: Review a pull request\nargument-hint: [pr-number] [priority]\nallowed-tools: Bash(git diff:*), Read\nmodel: claude-haiku-4-5\n---\n\nReview PR #$1 ($2).\n",
        ".claude/commands/plain.md": "\n\nSummarise   the recent changes.\nThen list the risks.\n",
        ".claude/commands/frontend/component.md": "---\ndescription: >\n  Make a\n  component\n---\nMake $ARGUMENTS.\n",
        ".claude/commands/frontend/react/hook.md": "---\nargument-hint: \"<name>\"\n---\nWrite a hook.\n",
        ".claude/commands/notes.txt": "not a command\n",
        ".claude/commands/.hidden.md": "hidden\n"
      })
      const { commands: listed, problems } = yield* commands.list(cwd)
      expect(problems).toEqual([])
      const at = (file: string) => path.join(repo, ".claude/commands", file)
      expect(listed).toEqual([
        { name: "component", description: "Make a component", namespace: "frontend", source: "project", path: at("frontend/component.md") },
        { name: "hook", description: "Write a hook.", argumentHint: "<name>", namespace: "frontend:react", source: "project", path: at("frontend/react/hook.md") },
        { name: "plain", description: "Summarise the recent changes.", source: "project", path: at("plain.md") },
        {
          name: "review",
          description: "Review a pull request",
          argumentHint: "[pr-number] [priority]",
          source: "project",
          path: at("review.md"),
          ignored: ["allowed-tools", "model"]
        }
      ])
      const loaded = yield* commands.load(cwd, "review")
      expect(loaded.body).toBe("Review PR #$1 ($2).")
      expect(loaded.command.name).toBe("review")
    })
  )

  it.scoped("the project beats the user, .custom-agent beats .claude, the config directory beats Claude Code's folder", () =>
    Effect.gen(function* () {
      const { repo, configDir, claudeDir, commands, cwd } = yield* commandTree(
        {
          ".custom-agent/commands/deploy.md": "Deploy from .custom-agent.\n",
          ".claude/commands/deploy.md": "Deploy from .claude.\n",
          ".claude/commands/test.md": "Test from the project.\n"
        },
        { "commands/test.md": "Test of the user.\n", "commands/lint.md": "Lint of the user.\n" },
        { "commands/lint.md": "Lint of Claude Code's folder.\n", "commands/fmt.md": "Format.\n" }
      )
      const { commands: listed, problems } = yield* commands.list(cwd)
      expect(problems).toEqual([])
      expect(listed.map((c) => [c.name, c.source, c.path])).toEqual([
        ["deploy", "project", path.join(repo, ".custom-agent/commands/deploy.md")],
        ["fmt", "user", path.join(claudeDir, "commands/fmt.md")],
        ["lint", "user", path.join(configDir, "commands/lint.md")],
        ["test", "project", path.join(repo, ".claude/commands/test.md")]
      ])
      expect((yield* commands.load(cwd, "deploy")).body).toBe("Deploy from .custom-agent.")
    })
  )

  it.scoped("malformed files are named with what is wrong, never fatal; the good ones are still listed", () =>
    Effect.gen(function* () {
      const { repo, commands, cwd } = yield* commandTree({
        ".claude/commands/good.md": "Fine.\n",
        ".claude/commands/open.md": "---\ndescription: never closed\nBody.\n",
        ".claude/commands/empty.md": "---\ndescription: nothing to send\n---\n\n",
        ".claude/commands/listy.md": "---\ndescription: [a, b]\n---\nBody.\n",
        ".claude/commands/badyaml.md": "---\ndescription: *alias\n---\nBody.\n",
        ".claude/commands/my command.md": "Spaces.\n",
        // The same name twice in one folder tree: the folder's own file first, the subfolder's is the clash.
        ".claude/commands/build.md": "Build.\n",
        ".claude/commands/backend/build.md": "Build the backend.\n"
      })
      const { commands: listed, problems } = yield* commands.list(cwd)
      expect(listed.map((c) => c.name)).toEqual(["build", "good"])
      expect(listed[0]?.description).toBe("Build.")
      expect(messages(problems).sort()).toEqual(
        [
          `badyaml.md: line 2: "*" starts an anchor, alias, tag or reserved YAML indicator, which SKILL.md front matter does not support; quote the value`,
          `build.md: command name "build" is already used by ${path.join(repo, ".claude/commands/build.md")}; this one is ignored`,
          "empty.md: the body is empty: it holds the prompt the command sends",
          'listy.md: "description" must be text',
          'my command.md: "my command" is not a command name: letters, digits, "-", "_" and "." only, starting with a letter or digit, at most 64',
          'open.md: the front matter is not closed by a "---" line'
        ].sort()
      )
      const missing = yield* Effect.flip(commands.load(cwd, "open"))
      expect(missing.message).toContain('command "open"')
      expect(missing.message).toContain("is not closed")
      expect((yield* Effect.flip(commands.load(cwd, "nothing"))).message).toBe('no command named "nothing"')
    })
  )

  it.scoped("a project's command file that links out of the workspace is refused, one inside still reads; a linked folder is not followed", () =>
    Effect.gen(function* () {
      const { repo, commands, cwd } = yield* commandTree({ "packages/app/notes.md": "Notes inside.\n" })
      const outside = yield* tempOutside
      yield* writeFiles(outside, { "secret.md": "OUTSIDE-SECRET\n", "more/x.md": "OUTSIDE-SECRET too\n" })
      const folder = path.join(repo, ".claude/commands")
      yield* Effect.promise(async () => {
        await fs.mkdir(folder, { recursive: true })
        await fs.symlink(path.join(outside, "secret.md"), path.join(folder, "steal.md"))
        await fs.symlink(path.join(repo, "packages/app/notes.md"), path.join(folder, "notes.md"))
        await fs.symlink(path.join(outside, "more"), path.join(folder, "more"))
      })
      const { commands: listed, problems } = yield* commands.list(cwd)
      expect(listed.map((c) => c.name)).toEqual(["notes"])
      expect(JSON.stringify({ listed, problems })).not.toContain("OUTSIDE-SECRET")
      expect(messages(problems).join("\n")).toContain("steal.md: ")
      expect(messages(problems).join("\n")).toContain("leads outside the workspace")
      expect(messages(problems).join("\n")).toContain("more: it is a link to a folder, which is not followed")
      const refused = yield* Effect.flip(commands.load(cwd, "steal"))
      expect(refused.message).not.toContain("OUTSIDE-SECRET")
      expect((yield* commands.load(cwd, "notes")).body).toBe("Notes inside.")
    })
  )

  it.scoped("reads at most 256 KiB of a command, and only the start of each file to list it; the body is read whole, as it is now, to run it", () =>
    Effect.gen(function* () {
      const { repo, commands, cwd } = yield* commandTree({
        ".claude/commands/huge.md": `---\ndescription: too big\n---\n${"x".repeat(CommandFolders.COMMAND_MAX_BYTES)}\n`,
        ".claude/commands/long.md": `---\ndescription: long but allowed\n---\n${"y".repeat(100_000)}\nEND\n`
      })
      const { commands: listed, problems } = yield* commands.list(cwd)
      expect(listed.map((c) => c.name)).toEqual(["long"])
      expect(messages(problems)).toEqual(["huge.md: it is 256.0 KiB, over the 256.0 KiB limit"])
      expect((yield* commands.load(cwd, "long")).body.endsWith("\nEND")).toBe(true)
      yield* writeFiles(repo, { ".claude/commands/long.md": "---\ndescription: changed\n---\nNew body.\n" })
      const again = yield* commands.load(cwd, "long")
      expect(again.body).toBe("New body.")
      expect(again.command.description).toBe("changed")
    })
  )

  it.scoped("a folder too deep, and files past the count limit, are not read, each said once", () =>
    Effect.gen(function* () {
      const files: Record<string, string> = { ".claude/commands/a/b/c/d/e/deep.md": "Deep.\n", ".claude/commands/a/b/c/d/e/f/deeper.md": "Deeper.\n" }
      for (let i = 0; i < COMMAND_FILES_MAX + 5; i++) files[`.custom-agent/commands/c${String(i).padStart(4, "0")}.md`] = "Count.\n"
      const { commands, cwd } = yield* commandTree(files)
      const { commands: listed, problems } = yield* commands.list(cwd)
      expect(listed.filter((c) => c.name.startsWith("c0")).length).toBe(COMMAND_FILES_MAX)
      expect(listed.map((c) => c.name)).toContain("deep")
      expect(listed.map((c) => c.name)).not.toContain("deeper")
      expect(messages(problems)).toEqual([
        `commands: it holds more than ${COMMAND_FILES_MAX} command files; the rest are not read`,
        "f: it lies more than 5 folders down; its commands are not read"
      ])
    })
  )
})
