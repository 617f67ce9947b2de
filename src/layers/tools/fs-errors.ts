import { messageOf } from "../../domain/cause-message.js"

/** The errno code of a Node fs error, if it carries one. */
export const errnoCode = (error: unknown): string | undefined =>
  error instanceof Error && "code" in error && typeof error.code === "string" ? error.code : undefined

/** A sentence naming the path and what went wrong, for people and models. */
export const describeFsError = (action: "read" | "write" | "list" | "search", p: string, error: unknown): string => {
  switch (errnoCode(error)) {
    case "ENOENT":
      return action === "write" ? `cannot write ${p}: a parent directory could not be created` : `no such file or directory: ${p}`
    case "EACCES":
    case "EPERM":
      return `permission denied: cannot ${action} ${p}`
    case "EISDIR":
      return `${p} is a directory, not a file`
    case "EEXIST": // mkdir met a file where a parent directory should be
    case "ENOTDIR":
      return action === "list" ? `${p} is not a directory` : `a parent of ${p} is not a directory`
    default:
      return `cannot ${action} ${p}: ${messageOf(error)}`
  }
}
