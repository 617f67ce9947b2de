/**
 * What a caught failure says, for a person: an Error's message, else the value as text. The
 * errors that carry a cause keep the original too (their `cause` field); this is only the words.
 */
export const messageOf = (cause: unknown): string => (cause instanceof Error ? cause.message : String(cause))
