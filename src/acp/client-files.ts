import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { methods } from "@agentclientprotocol/sdk/unstable"
import { LocalFileAccess } from "../layers/tools/local-file-access.js"
import { type FileAccess, FileAccessError, Files } from "../services/ToolRouter.js"
import type { ClientPeer } from "./peer.js"
import type { UpdateBarrier } from "./update-barrier.js"

/**
 * File tools through the editor (`fs/read_text_file`, `fs/write_text_file`) when it offers
 * them, so they see unsaved buffers and their edits land in them; the local disk otherwise.
 * The client addresses files by session, hence the per-session access. A request waits for
 * the updates of what the session committed before it (see UpdateBarrier): the editor hears
 * of a tool call before the file requests it makes.
 */
export const clientFileAccess = (peer: ClientPeer, barrier: UpdateBarrier): FileAccess => {
  const forSession = (sessionId: string): FileAccess => ({
    readText: (path, judged) =>
      peer.readsFiles
        ? barrier.caughtUp(sessionId).pipe(
            Effect.zipRight(peer.request(methods.client.fs.readTextFile, { sessionId, path })),
            Effect.map((response) => response.content),
            Effect.mapError((error) => new FileAccessError({ path, message: `the editor could not read ${path}: ${error.message}`, cause: error }))
          )
        : LocalFileAccess.readText(path, judged),
    writeText: (path, content, judged) =>
      peer.writesFiles
        ? barrier.caughtUp(sessionId).pipe(
            Effect.zipRight(peer.request(methods.client.fs.writeTextFile, { sessionId, path, content })),
            Effect.asVoid,
            Effect.mapError((error) => new FileAccessError({ path, message: `the editor could not write ${path}: ${error.message}`, cause: error }))
          )
        : LocalFileAccess.writeText(path, content, judged)
  })
  return { ...LocalFileAccess, forSession }
}

export const clientFilesLayer = (peer: ClientPeer, barrier: UpdateBarrier) => Layer.succeed(Files, clientFileAccess(peer, barrier))
