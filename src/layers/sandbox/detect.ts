import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { lstat } from "node:fs/promises"
import { baseMounts, namespaceArguments } from "./arguments.js"
import { findExecutable } from "./executable.js"
import { LAUNCHER_SHELL } from "./launcher.js"
import { childEnvironment, FIXED_ONLY } from "../subprocess-env.js"

/** Whether bubblewrap can run here, and if not, why (one line, for the start-up warning). */
export type Availability =
  | { readonly _tag: "available"; readonly bwrapPath: string }
  | { readonly _tag: "unavailable"; readonly reason: string }

export interface DetectOptions {
  /** A path, or a name looked up on PATH. */
  readonly bwrapPath: string
  readonly platform: NodeJS.Platform
  readonly env: NodeJS.ProcessEnv
}

/** A probe that takes longer than this is a bubblewrap we cannot rely on. */
const PROBE_TIMEOUT = Duration.seconds(10)

const firstLine = (text: string) => text.trim().split("\n")[0]?.trim() ?? ""

/** Runs `bwrap <the sandbox's namespace flags and base mounts> -- true`; its stderr's first line on failure. */
const probe = (bwrapPath: string): Effect.Effect<string | undefined> =>
  Effect.promise(() => import("node:child_process")).pipe(
    Effect.flatMap(({ spawn }) =>
      Effect.async<string | undefined>((resume) => {
        let stderr = ""
        const child = spawn(bwrapPath, [...namespaceArguments(false, true), ...baseMounts, "--", "true"], {
          stdio: ["ignore", "ignore", "pipe"],
          env: childEnvironment(FIXED_ONLY)
        })
        child.stderr?.on("data", (chunk: Buffer) => {
          if (stderr.length < 4096) stderr += chunk.toString("utf8")
        })
        child.on("error", (error) => resume(Effect.succeed(`cannot run it: ${error.message}`)))
        child.on("close", (code, signal) => {
          if (code === 0) return resume(Effect.succeed(undefined))
          const status = code === null ? `signal ${signal ?? "?"}` : `code ${code}`
          resume(Effect.succeed(firstLine(stderr) || `the probe exited with ${status}`))
        })
        return Effect.sync(() => child.kill("SIGKILL"))
      })
    ),
    Effect.timeoutTo({ duration: PROBE_TIMEOUT, onSuccess: (problem) => problem, onTimeout: () => "the probe did not finish" })
  )

/** Finds bubblewrap and checks, by running it once, that it can create the sandbox's namespaces. */
export const detect = (options: DetectOptions): Effect.Effect<Availability> =>
  Effect.gen(function* () {
    if (options.platform !== "linux") return { _tag: "unavailable", reason: `bubblewrap needs Linux, and this is ${options.platform}` }
    const path = yield* findExecutable(options.bwrapPath, options.env["PATH"], process.cwd())
    if (path === undefined) return { _tag: "unavailable", reason: `${options.bwrapPath} not found (install bubblewrap)` }
    // Without it, inherited descriptors would reach the command (launcher.ts): no sandbox rather than a leaky one.
    if ((yield* findExecutable(LAUNCHER_SHELL, undefined, "/")) === undefined) {
      return { _tag: "unavailable", reason: `${LAUNCHER_SHELL} not found (the sandbox starts bubblewrap through it)` }
    }
    const problem = yield* probe(path)
    if (problem !== undefined) return { _tag: "unavailable", reason: `${path} cannot create a sandbox: ${problem}` }
    return { _tag: "available", bwrapPath: path }
  })

/** Host directories of local sockets (Docker's, D-Bus'): `/run` and a `/var/run` that is not a link to it. */
export const socketDirectories = (): Effect.Effect<ReadonlyArray<string>> =>
  Effect.forEach(["/run", "/var/run"], (dir) =>
    Effect.promise(() =>
      lstat(dir).then(
        (stat) => (stat.isDirectory() ? [dir] : []),
        () => []
      )
    )
  ).pipe(Effect.map((found) => found.flat()))
