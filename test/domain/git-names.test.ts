import { describe, expect, it } from "@effect/vitest"
import { isGitDirName, isGitMetadataName, isGitModulesName } from "../../src/domain/git-names.js"

describe("the names git takes for its metadata", () => {
  it(".git as git reads it on folding filesystems: any case, HFS+ ignorables, NTFS trailing dots, spaces, streams and short names", () => {
    for (const name of [".git", ".GIT", ".Git", ".g\u200cit", "\ufeff.git", ".git.", ".git ", ".git. .", ".git::$INDEX_ALLOCATION", "GIT~1", "git~1"]) {
      expect(isGitDirName(name), JSON.stringify(name)).toBe(true)
    }
  })

  it(".gitmodules likewise", () => {
    for (const name of [".gitmodules", ".GITMODULES", ".gitmodules.", ".git\u200dmodules", "GITMOD~1"]) {
      expect(isGitModulesName(name), JSON.stringify(name)).toBe(true)
    }
  })

  it("other names are not: the files a project keeps beside them and look-alikes that no filesystem folds", () => {
    for (const name of [".gitignore", ".gitattributes", ".github", ".gitkeep", "git", "foo.git", ".git-old", "..git", "x.git", ".", "..", "", ".gitmodules2", "git~2"]) {
      expect(isGitMetadataName(name), JSON.stringify(name)).toBe(false)
    }
  })
})
