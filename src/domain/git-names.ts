/**
 * The names git takes for its own metadata: `.git` (a repository's directory, or a file saying
 * where it is) and `.gitmodules` (which submodules a repository has). What lies at such a name
 * steers what git runs on the host (`core.fsmonitor`, hooks, filters), at any depth: git in a
 * folder finds the nearest `.git` above it, and a repository's status goes into its submodules.
 *
 * Compared as git itself compares them where the filesystem folds names (`core.protectHFS`,
 * `core.protectNTFS`): case-insensitively, without the code points HFS+ ignores, without the
 * trailing dots and spaces and the stream suffix NTFS drops, and by the short names NTFS makes.
 * On a case-sensitive filesystem these are other names; holding them too costs nothing.
 */

/** Code points HFS+ ignores in a name: zero-width joiners, direction marks and the BOM. */
const HFS_IGNORED = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/gu

/** A name as a folding filesystem would see it. */
const folded = (name: string): string =>
  name
    .replace(HFS_IGNORED, "")
    .toLowerCase()
    // NTFS: `.git::$INDEX_ALLOCATION` and `.git:stream` are `.git`; so are `.git.` and `.git `.
    .replace(/:.*$/su, "")
    .replace(/[. ]+$/u, "")

const GIT_DIR_NAMES: ReadonlySet<string> = new Set([".git", "git~1"])
const GIT_MODULES_NAMES: ReadonlySet<string> = new Set([".gitmodules", "gitmod~1"])

/** `.git`, as any filesystem git runs on may take it. */
export const isGitDirName = (name: string): boolean => GIT_DIR_NAMES.has(folded(name))

/** `.gitmodules`, as any filesystem git runs on may take it. */
export const isGitModulesName = (name: string): boolean => GIT_MODULES_NAMES.has(folded(name))

/** A name git takes for its metadata: `.git` or `.gitmodules`. */
export const isGitMetadataName = (name: string): boolean => isGitDirName(name) || isGitModulesName(name)
