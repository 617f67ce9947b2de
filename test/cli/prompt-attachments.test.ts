import { afterAll, describe, expect, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { ATTACHMENT_MAX_BYTES, attachFiles } from "../../src/cli/prompt-attachments.js"
import { runCli } from "../support/cli.js"
import { makeTemp } from "../support/temp-dirs.js"

const temps = makeTemp()
afterAll(temps.cleanup)

const workspace = () => {
  const root = temps.dir("attach-")
  const cwd = join(root, "work")
  mkdirSync(join(cwd, "src"), { recursive: true })
  writeFileSync(join(cwd, "src", "a.ts"), "export const a = 1\n")
  writeFileSync(join(root, "outside.txt"), "OUTSIDE-CONTENT\n")
  return { root, cwd, options: { cwd, home: join(root, "home"), configDir: join(root, "config"), dataDir: join(root, "data") } }
}

describe("@path in a prompt", () => {
  it("attaches a workspace file as a context block after the prompt, and says so", () => {
    const { cwd, options } = workspace()
    const attached = attachFiles("explain @src/a.ts, please", options)
    expect(attached.content).toBe(`explain @src/a.ts, please\n\n<context uri="file://${join(cwd, "src", "a.ts")}">\nexport const a = 1\n\n</context>`)
    expect(attached.notes).toEqual(["attached @src/a.ts (19 bytes)"])
    // The block is declared with its place, so views fold it and nothing else.
    expect(attached.attached).toEqual([{ uri: `file://${join(cwd, "src", "a.ts")}`, start: "explain @src/a.ts, please\n\n".length, end: attached.content.length }])
  })

  it("leaves an @word that names nothing as it is, and attaches a file named twice once", () => {
    const { options } = workspace()
    expect(attachFiles("ask @alice or mail bob@example.com", options)).toEqual({ content: "ask @alice or mail bob@example.com", attached: [], notes: [] })
    const twice = attachFiles("@src/a.ts and again @./src/a.ts", options)
    expect(twice.content.match(/<context /g)).toHaveLength(1)
  })

  it("refuses, with a line each, a directory, a binary file, a file over the cap and a fifo", () => {
    const { cwd, options } = workspace()
    writeFileSync(join(cwd, "bin.dat"), Buffer.from([1, 0, 2]))
    writeFileSync(join(cwd, "big.txt"), "x".repeat(ATTACHMENT_MAX_BYTES + 1))
    execFileSync("mkfifo", [join(cwd, "pipe")])
    const attached = attachFiles("@src @bin.dat @big.txt @pipe", options)
    expect(attached.content).toBe("@src @bin.dat @big.txt @pipe")
    expect(attached.notes).toEqual([
      "@src not attached: it is not a regular file (a directory)",
      "@bin.dat not attached: it is not text",
      "@big.txt not attached: it is larger than 256 KiB",
      "@pipe not attached: it is not a regular file (a fifo)"
    ])
  })

  it("run attaches what the prompt names, from an argument or from stdin", { timeout: 60_000 }, async () => {
    const { root, cwd } = workspace()
    const env = { CUSTOM_AGENT_HOME: join(root, "data"), CUSTOM_AGENT_CONFIG_HOME: join(root, "config") }
    const argument = await runCli(["run", "what is in @src/a.ts?"], { env, cwd })
    expect(argument.code, argument.stderr).toBe(0)
    expect(argument.stderr).toContain("attached @src/a.ts (19 bytes)")
    expect(argument.stdout).toContain("export const a = 1")
    const piped = await runCli(["run"], { env, cwd, input: "and @src/a.ts\n" })
    expect(piped.code, piped.stderr).toBe(0)
    expect(piped.stdout).toContain("export const a = 1")
  })
})
