import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { PermissionStoreError } from "../../services/PermissionEngine.js"
import { loadStoreFile, saveStoreFile } from "./json-store.js"

/** One trusted rules file: the content a person saw and accepted, by its hash. */
export const TrustedFile = Schema.Struct({
  file: Schema.String,
  sha256: Schema.String,
  trustedAt: Schema.String,
  by: Schema.String
})
export type TrustedFile = typeof TrustedFile.Type

const TrustFile = Schema.Struct({ trusted: Schema.Array(TrustedFile) })

export const loadTrustFile = (file: string): Effect.Effect<ReadonlyArray<TrustedFile>, PermissionStoreError> =>
  Effect.map(loadStoreFile(file, TrustFile, "trust file"), Option.match({ onNone: () => [], onSome: (parsed) => parsed.trusted }))

export const saveTrustFile = (file: string, trusted: ReadonlyArray<TrustedFile>) => saveStoreFile(file, { trusted })
