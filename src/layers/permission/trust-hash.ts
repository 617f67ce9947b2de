import { createHash } from "node:crypto"

/** One named thing a project's trust covers: a file's name and its text, or a script's name and its digest or mark. */
export type TrustPart = readonly [name: string, content: string | undefined]

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex")

/**
 * The hash trust is keyed by. Each part's content is hashed on its own and the list of names
 * and digests is hashed as JSON, so no file's text can pose as another file's, or as a part
 * that is not there: joining the texts with separators let a settings file carry the text of
 * hooks and servers that later moved into their own files under the same hash.
 */
export const trustHash = (parts: ReadonlyArray<TrustPart>): string =>
  sha256(JSON.stringify(parts.map(([name, content]) => [name, content === undefined ? null : sha256(content)])))
