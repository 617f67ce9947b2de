import { messageOf } from "../../domain/cause-message.js"
import { StoreFailure } from "../../domain/errors.js"

/**
 * A caught failure as a StoreFailure of `operation`, keeping it as the cause. A client error
 * that wraps a driver's (an @effect/sql SqlError: "Failed to execute statement") names the
 * driver's words too, which say what really went wrong.
 */
export const storeFailure = (operation: string) => (cause: unknown) => {
  const inner = cause instanceof Error && cause.cause instanceof Error ? `: ${cause.cause.message}` : ""
  return new StoreFailure({ operation, reason: `${messageOf(cause)}${inner}`, cause })
}
