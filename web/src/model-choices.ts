/**
 * Models to offer in the picker (shared with the ACP agent's model option). Only suggestions:
 * any model the server can build may be typed (`anthropic/<id>`, `openai/<id>`, `openai-compatible/<id>`, `scripted`).
 */
export { modelChoices } from "../../src/domain/model-choices.js"

/** The model to make the session's: what was picked, when it differs from the session's (else none: the session's holds). */
export const modelToSet = (picked: string, current: string | undefined): string | undefined => {
  const model = picked.trim()
  return model === "" || model === current ? undefined : model
}
