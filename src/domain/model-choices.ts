import { packagedPrices } from "./prices.js"

/**
 * Models to offer a person picking one: the session's own, those other sessions use, then the
 * provider defaults and the models this package knows prices for. The web page's picker and the
 * ACP agent's model option both offer these.
 */
export const modelChoices = (current: string | undefined, others: ReadonlyArray<string | undefined>): ReadonlyArray<string> => {
  const all = [current, ...others, "anthropic", ...Object.keys(packagedPrices), "scripted"]
  return [...new Set(all.filter((model): model is string => model !== undefined && model !== ""))]
}
