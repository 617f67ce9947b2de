/**
 * What went wrong, in words, for a turn's `errorCode` (or a model request's `code`): the codes
 * stay in the log and the tooltip; the page says what they mean. An unknown code (a newer
 * server's) reads as a failed turn.
 */
const words: Readonly<Record<string, string>> = {
  auth: "The model provider refused the API key, or none is set.",
  rate_limited: "The model provider is limiting requests (rate limit), even after waiting and trying again.",
  overloaded: "The model provider is overloaded, even after waiting and trying again.",
  context_overflow: "The conversation no longer fits the model's context window: compact it, then retry.",
  network: "The model provider could not be reached, even after trying again.",
  invalid_response: "The model provider sent an answer that could not be read.",
  bad_request: "The model provider refused the request.",
  provider_error: "The model provider had an error on its side.",
  scripted: "The scripted model failed, as its script says.",
  interrupted: "The process running this turn stopped before the turn ended.",
  model_unavailable: "The session's model cannot be used on this server.",
  store_failure: "The session's log could not be written.",
  prompt_blocked: "A hook blocked the prompt.",
  output_invalid: "The answer never matched the output schema.",
  agent_unavailable: "This subagent's definition cannot be run as it says."
}

export const failureWords = (code: string | undefined): string => (code === undefined ? undefined : words[code]) ?? "The turn failed."
