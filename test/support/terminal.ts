import { spawn } from "node:child_process"
import { assertBuilt, cliPath } from "./cli.js"

/**
 * `custom-agent <args>` on a real terminal (util-linux `script` gives it a pty): each time the
 * output shows `prompt` once more, the next of `answers` is typed (or, for a function, done
 * instead: another client answering, say). Output has `\n` line ends.
 */
export const runOnTerminal = (
  cwd: string,
  args: ReadonlyArray<string>,
  prompt: string,
  answers: ReadonlyArray<string | (() => Promise<void>)>,
  /** More of the environment (the agent's own data and config folders, say). */
  env: Record<string, string> = {}
) =>
  new Promise<{ readonly code: number | null; readonly output: string }>((resolve, reject) => {
    assertBuilt()
    const command = [process.execPath, cliPath, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(" ")
    const child = spawn("script", ["-q", "-e", "-c", command, "/dev/null"], {
      cwd,
      env: { PATH: process.env["PATH"], HOME: process.env["HOME"], NO_COLOR: "1", TERM: "dumb", ...env },
      stdio: ["pipe", "pipe", "pipe"]
    })
    let output = ""
    let answered = 0
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`custom-agent ${args.join(" ")} did not end:\n${output}`))
    }, 30_000)
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8")
      const asked = output.split(prompt).length - 1
      if (asked > answered) {
        const next = answers[answered] ?? "\x03"
        answered = asked
        if (typeof next === "string") child.stdin.write(next)
        else next().catch((error: unknown) => {
          child.kill("SIGKILL")
          reject(error)
        })
      }
    })
    child.on("error", reject)
    child.on("close", (code) => {
      clearTimeout(timer)
      resolve({ code, output: output.replace(/\r\n/g, "\n") })
    })
  })
