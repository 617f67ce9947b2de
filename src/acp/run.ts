import * as Effect from "effect/Effect"
import { type HostConfig, hostLayer } from "../app/host.js"
import * as Agent from "./agent.js"
import { clientFilesLayer } from "./client-files.js"
import { serveConnection } from "./connection.js"
import { ClientPeer } from "./peer.js"
import { consoleToStderr, stderrLogger, stdioStream } from "./stdio.js"
import { UpdateBarrier } from "./update-barrier.js"

export type AcpConfig = Omit<HostConfig, "files">

/**
 * The agent as an ACP agent on stdin/stdout: one host (store, model, tools, MCP, skills)
 * whose file tools go through the editor when it offers that, serving one client until it
 * closes stdin. Everything but protocol messages goes to stderr.
 */
export const runAcp = (config: AcpConfig) =>
  Effect.gen(function* () {
    yield* consoleToStderr
    const peer = new ClientPeer()
    const barrier = new UpdateBarrier()
    const info = { name: "custom-agent", version: config.version ?? "0.0.0" }
    yield* Effect.flatMap(Agent.make(peer, barrier, info), (agent) => serveConnection(stdioStream(), peer, agent, info.name)).pipe(
      Effect.provide(hostLayer({ ...config, files: clientFilesLayer(peer, barrier) }))
    )
  }).pipe(Effect.scoped, Effect.provide(stderrLogger))
