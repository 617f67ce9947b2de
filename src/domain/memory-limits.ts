/**
 * Memory candidates that may wait for a person's review at once: a model proposing in a loop
 * must not grow the review queue (and the file it is kept in, rewritten whole on each change)
 * without end. Past it a proposal is refused, and the model is told to stop.
 */
export const MAX_PENDING_CANDIDATES = 100
