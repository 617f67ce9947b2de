import type { SessionConfigOption, SessionUpdate, SetSessionConfigOptionRequest } from "@agentclientprotocol/sdk/unstable"
import * as Either from "effect/Either"
import { type AcpMode, acpModes, isAcpMode } from "./modes.js"

/** The ids of the options this agent offers: the permission mode and the model. */
export const MODE_OPTION = "mode"
export const MODEL_OPTION = "model"

interface Configurable {
  readonly mode: AcpMode
  readonly model: string
  readonly models: ReadonlyArray<string>
}

/**
 * The session's options as ACP 1.7 shows them: the same modes `session/set_mode` takes (kept
 * for older clients), and the models the host knows.
 */
export const configOptions = (session: Configurable): Array<SessionConfigOption> => [
  {
    id: MODE_OPTION,
    name: "Mode",
    description: "What the agent may do without asking",
    category: "mode",
    type: "select",
    currentValue: session.mode,
    options: acpModes.map((mode) => ({ value: mode.id, name: mode.name, description: mode.description }))
  },
  {
    id: MODEL_OPTION,
    name: "Model",
    description: "The model the session's next turns ask",
    category: "model",
    type: "select",
    currentValue: session.model,
    options: session.models.map((model) => ({ value: model, name: model }))
  }
]

export const configOptionUpdate = (session: Configurable): SessionUpdate => ({ sessionUpdate: "config_option_update", configOptions: configOptions(session) })

/** What a `session/set_config_option` asks for, or why it cannot be done (an unknown option or value). */
export type ConfigChange = { readonly _tag: "Mode"; readonly mode: AcpMode } | { readonly _tag: "Model"; readonly model: string }

export const configChange = (session: Configurable, request: SetSessionConfigOptionRequest): Either.Either<ConfigChange, string> => {
  const { configId, value } = request
  if (typeof value !== "string") return Either.left(`option ${configId} takes one of its listed values, not ${JSON.stringify(value)}`)
  switch (configId) {
    case MODE_OPTION:
      return isAcpMode(value) ? Either.right({ _tag: "Mode", mode: value }) : Either.left(`unknown mode ${value}`)
    case MODEL_OPTION:
      return session.models.includes(value) ? Either.right({ _tag: "Model", model: value }) : Either.left(`unknown model ${value}; the option lists the ones offered`)
    default:
      return Either.left(`unknown config option ${configId}`)
  }
}
