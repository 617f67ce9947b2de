import * as ClusterSchema from "@effect/cluster/ClusterSchema"
import * as Entity from "@effect/cluster/Entity"
import { Rpc } from "@effect/rpc"
import * as PrimaryKey from "effect/PrimaryKey"
import * as Schema from "effect/Schema"
import * as Struct from "effect/Struct"
import { PermissionMode } from "../domain/permissions.js"
import { AgentEvent } from "../domain/events.js"
import { AnswerNotOffered, PermissionAnswer, PermissionNotPending, PromptReceipt, PromptRequest, QueueAction, QueuedMessageNotFound, SessionView, SetModelRequest } from "../domain/host.js"
import { EngineFailure } from "../rpc/group.js"
import { McpError } from "../services/McpHub.js"
import { MemoryStoreFailure } from "../services/MemoryStore.js"
import { SlashCommandList } from "../domain/slash-commands.js"
import { RewindDrift, RewindResult, RewindTarget, RewindUnavailable, RewindWhat } from "../domain/rewind.js"

/**
 * Messages that change a session carry the client's request id: stored before delivery and
 * delivered again to the shard's next owner if a runner dies, they are de-duplicated by it.
 */
export class CreatePayload extends Schema.Class<CreatePayload>("CreatePayload")({
  requestId: Schema.String,
  cwd: Schema.String,
  client: Schema.String,
  title: Schema.optional(Schema.String),
  model: Schema.optional(Schema.String),
  /** The first prompt's attachments, read before the session is created. */
  attachments: Schema.optional(Schema.Array(Schema.String))
}) {
  [PrimaryKey.symbol]() {
    return this.requestId
  }
}

/** The domain's `PromptRequest` without the session (the entity's key), with the request id it is delivered by. */
export class PromptPayload extends Schema.Class<PromptPayload>("PromptPayload")({
  ...Struct.omit(PromptRequest.fields, "sessionId"),
  requestId: Schema.String
}) {
  [PrimaryKey.symbol]() {
    return this.requestId
  }
}

export class EditQueuePayload extends Schema.Class<EditQueuePayload>("EditQueuePayload")({
  requestId: Schema.String,
  messageId: Schema.String,
  action: QueueAction
}) {
  [PrimaryKey.symbol]() {
    return this.requestId
  }
}

export class CompactPayload extends Schema.Class<CompactPayload>("CompactPayload")({ requestId: Schema.String }) {
  [PrimaryKey.symbol]() {
    return this.requestId
  }
}

/**
 * One session on the cluster (entity id = session id). Its owner runner holds the session's
 * actor; every change goes through here. Cancel, permission answers and reads are volatile
 * and never wait behind a turn (the entity runs its messages concurrently). Rewind, redo and
 * fork run on the owner too: its checkpoints are in its data directory.
 */
export const AgentSession = Entity.make("AgentSession", [
  Rpc.make("Create", { payload: CreatePayload, success: SessionView, error: Schema.Union(EngineFailure, McpError) }).annotate(ClusterSchema.Persisted, true),
  Rpc.make("Prompt", { payload: PromptPayload, success: PromptReceipt, error: Schema.Union(EngineFailure, McpError) }).annotate(
    ClusterSchema.Persisted,
    true
  ),
  Rpc.make("EditQueue", { payload: EditQueuePayload, error: Schema.Union(EngineFailure, QueuedMessageNotFound) }).annotate(
    ClusterSchema.Persisted,
    true
  ),
  Rpc.make("Compact", { payload: CompactPayload, success: Schema.Option(AgentEvent), error: EngineFailure }).annotate(ClusterSchema.Persisted, true),
  Rpc.make("GetSession", { success: SessionView, error: EngineFailure }),
  /** On the owner: the commands are read from its disk, where the session's workspace is. */
  Rpc.make("ListCommands", { success: SlashCommandList, error: EngineFailure }),
  Rpc.make("Cancel", { error: EngineFailure }),
  Rpc.make("SetMode", { payload: { mode: PermissionMode, by: Schema.String }, error: EngineFailure }),
  // Volatile like SetMode: setting a model twice records it once.
  Rpc.make("SetModel", { payload: SetModelRequest, error: EngineFailure }),
  Rpc.make("Rename", { payload: { title: Schema.String, by: Schema.String }, error: EngineFailure }),
  Rpc.make("Archive", { payload: { archived: Schema.Boolean, by: Schema.String }, error: EngineFailure }),
  // On the owner, which holds the session's actor and its subagents'.
  Rpc.make("Delete", { payload: { by: Schema.String }, success: Schema.Array(Schema.String), error: Schema.Union(EngineFailure, MemoryStoreFailure) }),
  Rpc.make("RespondPermission", {
    payload: { toolCallId: Schema.String, answer: PermissionAnswer },
    error: Schema.Union(PermissionNotPending, AnswerNotOffered, EngineFailure)
  }),
  // Volatile: redelivered after a failover, a redo would undo a second rewind; the caller sees the failure and asks again.
  Rpc.make("Rewind", {
    payload: Schema.Struct({
      to: RewindTarget,
      what: Schema.optionalWith(RewindWhat, { exact: true }),
      path: Schema.optionalWith(Schema.String, { exact: true }),
      force: Schema.optionalWith(Schema.Boolean, { exact: true }),
      by: Schema.String
    }),
    success: RewindResult,
    error: Schema.Union(EngineFailure, RewindDrift, RewindUnavailable)
  }),
  Rpc.make("Redo", {
    payload: Schema.Struct({ force: Schema.optionalWith(Schema.Boolean, { exact: true }), by: Schema.String }),
    success: RewindResult,
    error: Schema.Union(EngineFailure, RewindDrift, RewindUnavailable)
  }),
  Rpc.make("Fork", {
    payload: Schema.Struct({ atSequence: Schema.optionalWith(Schema.Int, { exact: true }), by: Schema.String }),
    success: SessionView,
    error: Schema.Union(EngineFailure, RewindUnavailable)
  })
])
