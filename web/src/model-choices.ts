import { packagedPrices } from "../../src/domain/prices.js"

/**
 * Models to offer in the picker: the session's own, those other sessions use, then the
 * provider defaults and the models this package knows prices for. Only suggestions: any model
 * the server can build may be typed (`anthropic/<id>`, `openai/<id>`, `openai-compatible/<id>`, `scripted`).
 */
export const modelChoices = (current: string | undefined, others: ReadonlyArray<string | undefined>): ReadonlyArray<string> => {
  const all = [current, ...others, "anthropic", ...Object.keys(packagedPrices), "scripted"]
  return [...new Set(all.filter((model): model is string => model !== undefined && model !== ""))]
}

/** The model to send with the next prompt: what was picked, when it differs from the session's (else none: the session's holds). */
export const modelToSend = (picked: string, current: string | undefined): string | undefined => {
  const model = picked.trim()
  return model === "" || model === current ? undefined : model
}
