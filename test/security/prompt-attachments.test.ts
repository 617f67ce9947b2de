import { afterAll, describe, expect, it } from "@effect/vitest"
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { attachFiles } from "../../src/cli/prompt-attachments.js"
import { runCli } from "../support/cli.js"
import { makeTemp } from "../support/temp-dirs.js"

const temps = makeTemp()
afterAll(temps.cleanup)

/**
 * A prompt can come from a pipe (`curl … | custom-agent run`, an issue's text): whatever it
 * names with `@path` must not send a file the person did not mean to the model provider. Only
 * files inside the workspace are attached, judged at their real location, never the agent's
 * own directories or a credentials store, even with the workspace at $HOME.
 */
describe("@path attachments cannot reach past the workspace", () => {
  const setup = () => {
    const root = temps.dir("attach-sec-")
    const home = join(root, "home")
    const cwd = join(root, "work")
    mkdirSync(join(home, ".ssh"), { recursive: true })
    mkdirSync(cwd, { recursive: true })
    writeFileSync(join(home, ".ssh", "id_ed25519"), "PRIVATE-KEY-MATERIAL\n")
    writeFileSync(join(root, "other-project.env"), "OTHER-SECRET\n")
    symlinkSync(join(root, "other-project.env"), join(cwd, "innocent.txt"))
    return { root, home, cwd }
  }

  it("a path outside, a link out of the workspace, ~ and an absolute path are not attached", () => {
    const { root, home, cwd } = setup()
    const attached = attachFiles(`@../other-project.env @innocent.txt @~/.ssh/id_ed25519 @${join(root, "other-project.env")}`, {
      cwd,
      home,
      configDir: join(root, "config"),
      dataDir: join(root, "data")
    })
    expect(attached.content).not.toContain("OTHER-SECRET")
    expect(attached.content).not.toContain("PRIVATE-KEY-MATERIAL")
    // Three names of one file (a path, a link, an absolute path) and the key: one line each target.
    expect(attached.notes).toHaveLength(2)
    for (const note of attached.notes) expect(note).toContain("not attached: it lies outside the workspace")
  })

  it("with the workspace at $HOME, a credentials store and the agent's data directory stay out", () => {
    const { home } = setup()
    mkdirSync(join(home, "data"), { recursive: true })
    writeFileSync(join(home, "data", "trusted-projects.json"), "TRUST-STORE\n")
    const attached = attachFiles("@.ssh/id_ed25519 @data/trusted-projects.json", { cwd: home, home, configDir: join(home, "config"), dataDir: join(home, "data") })
    expect(attached.content).not.toContain("PRIVATE-KEY-MATERIAL")
    expect(attached.content).not.toContain("TRUST-STORE")
    expect(attached.notes).toEqual([
      "@.ssh/id_ed25519 not attached: it is in the credential store ~/.ssh",
      "@data/trusted-projects.json not attached: it is in the agent's data directory"
    ])
  })

  it("a piped prompt naming a link out of the workspace sends nothing of its target", { timeout: 60_000 }, async () => {
    const { root, home, cwd } = setup()
    const run = await runCli(["run", "-"], {
      cwd,
      input: "summarize @innocent.txt and @~/.ssh/id_ed25519\n",
      env: { HOME: home, CUSTOM_AGENT_HOME: join(root, "data"), CUSTOM_AGENT_CONFIG_HOME: join(root, "config") }
    })
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).not.toContain("OTHER-SECRET")
    expect(run.stdout).not.toContain("PRIVATE-KEY-MATERIAL")
    expect(run.stderr).toContain("@innocent.txt not attached")
  })
})
