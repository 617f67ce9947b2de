import { Layer } from "effect"
import { chmodSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import * as HooksLayer from "../../src/layers/hooks/layer.js"
import { layerOff } from "../../src/layers/sandbox/off.js"
import type { SandboxShape } from "../../src/services/Sandbox.js"
import { Sandbox } from "../../src/services/Sandbox.js"

/** A settings file's `hooks`, in Claude Code's shape: event -> matcher groups. */
export type HooksJson = Record<string, ReadonlyArray<{ readonly matcher?: string; readonly hooks: ReadonlyArray<{ readonly type: string; readonly command: string; readonly timeout?: number }> }>>

export const writeSettings = (file: string, hooks: HooksJson) => {
  mkdirSync(join(file, ".."), { recursive: true })
  writeFileSync(file, JSON.stringify({ hooks }, null, 2))
}

/** A script file, executable: a real hook for the tests to configure. */
export const writeScript = (file: string, body: string): string => {
  mkdirSync(join(file, ".."), { recursive: true })
  writeFileSync(file, body)
  chmodSync(file, 0o755)
  return file
}

/** The real Hooks layer, reading the user's settings from `configDir`, running hooks unsandboxed unless a sandbox is given. */
export const hooksLayer = (configDir: string, sandbox?: SandboxShape) =>
  HooksLayer.layer({ configDir }).pipe(Layer.provide(sandbox === undefined ? layerOff : Layer.succeed(Sandbox, sandbox)))
