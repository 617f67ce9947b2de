import { lstatSync } from "node:fs"
import { join, resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { type AttachedBlock, withContextBlocks } from "../domain/attached-blocks.js"
import { readBoundedSync } from "../layers/bounded-file.js"
import { placeHolding, privatePlaces, resolvePlaces } from "../layers/private-places.js"
import { isWithin, realLocation } from "../layers/tools/workspace-paths.js"

/** The most one attached file may hold, and all of a prompt's together: a prompt, not a disk. */
export const ATTACHMENT_MAX_BYTES = 256 * 1024
export const ATTACHMENTS_MAX_BYTES = 1024 * 1024

export interface AttachOptions {
  /** The workspace: only files whose real location lies inside it are attached. */
  readonly cwd: string
  readonly home: string | undefined
  /** The agent's configuration and data directories: never attached (nor a credential store), whatever the workspace. */
  readonly configDir: string
  readonly dataDir: string
}

export interface Attached {
  /** The prompt, then each attached file as a `<context>` block (the form ACP's embedded resources take). */
  readonly content: string
  /** Where each file's block lies in `content`: sent with the prompt and recorded on its message, the only blocks views fold. */
  readonly attached: ReadonlyArray<AttachedBlock>
  /** One line per `@path` that named a file: attached (with its size) or why not. */
  readonly notes: ReadonlyArray<string>
}

/** `@path` at the start or after a space, without the punctuation a sentence puts after it. */
const MENTION = /(?<=^|\s)@([^\s@]+)/gu
const TRAILING = /[.,;:!?)\]}'"]+$/u

const expandHome = (path: string, home: string | undefined) =>
  home !== undefined && (path === "~" || path.startsWith("~/")) ? join(home, path.slice(1)) : path

/**
 * Attaches the files a prompt names with `@path` (`explain @src/a.ts`), read by the CLI, so the
 * model has them from its first step. A prompt may come from a pipe whose text nobody wrote
 * for this, so the rule holds whatever it names: only a regular file whose real location lies
 * inside the workspace, never in the agent's own directories or a secret store, bounded, text.
 * An `@word` that names nothing (a mention, an address) is left as it is, silently.
 */
export const attachFiles = (prompt: string, options: AttachOptions): Attached => {
  const mentions = [...prompt.matchAll(MENTION)]
  if (mentions.length === 0) return { content: prompt, attached: [], notes: [] }
  const root = realLocation(options.cwd)
  // The same private places the sandbox hides and the permission engine asks for (private-places.ts).
  const places = resolvePlaces(privatePlaces({ home: options.home, configDir: options.configDir, dataDir: options.dataDir }))
  const blocks: Array<{ readonly uri: string; readonly text: string }> = []
  const notes: Array<string> = []
  const seen = new Set<string>()
  let total = 0
  for (const match of mentions) {
    const named = (match[1] ?? "").replace(TRAILING, "")
    if (named === "") continue
    const path = resolve(options.cwd, expandHome(named, options.home))
    const stat = lstatSync(path, { throwIfNoEntry: false })
    if (stat === undefined) continue
    const real = realLocation(path)
    if (seen.has(real)) continue
    seen.add(real)
    const refuse = (why: string) => notes.push(`@${named} not attached: ${why}`)
    if (!isWithin(root, real)) {
      refuse("it lies outside the workspace (the agent can read it with its tools, asking you first)")
      continue
    }
    const place = placeHolding(places, real)
    if (place !== undefined) {
      refuse(`it is in ${place.what}`)
      continue
    }
    const read = readBoundedSync(real, ATTACHMENT_MAX_BYTES)
    if (read._tag === "missing") continue
    if (read._tag === "refused") {
      refuse(read.problem === `is larger than ${ATTACHMENT_MAX_BYTES} bytes` ? `it is larger than ${ATTACHMENT_MAX_BYTES / 1024} KiB` : `it ${read.problem}`)
      continue
    }
    if (read.text.includes("\u0000")) {
      refuse("it is not text")
      continue
    }
    const bytes = Buffer.byteLength(read.text)
    if (total + bytes > ATTACHMENTS_MAX_BYTES) {
      refuse(`the prompt's attachments would pass ${ATTACHMENTS_MAX_BYTES / (1024 * 1024)} MiB`)
      continue
    }
    total += bytes
    blocks.push({ uri: pathToFileURL(real).href, text: read.text })
    notes.push(`attached @${named} (${bytes < 1024 ? `${bytes} bytes` : `${(bytes / 1024).toFixed(1)} KiB`})`)
  }
  return { ...withContextBlocks(prompt, blocks), notes }
}
