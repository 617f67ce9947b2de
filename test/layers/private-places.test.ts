import { describe, expect, it } from "@effect/vitest"
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { placeHolding, placesOutside, privatePlaces, resolvePlaces } from "../../src/layers/private-places.js"

describe("private places", () => {
  it("are the config and data directories, the secret stores and what the user hides, less what they reveal", () => {
    const places = privatePlaces({ home: "/h", configDir: "/c", dataDir: "/d", hide: ["~/work/secret", "/abs", "relative"], reveal: ["~/.docker"] })
    expect(places).toEqual([
      { path: "/c", what: "the agent's configuration directory" },
      { path: "/d", what: "the agent's data directory" },
      { path: "/h/.ssh", what: "the credential store ~/.ssh" },
      { path: "/h/.aws", what: "the credential store ~/.aws" },
      { path: "/h/.gnupg", what: "the credential store ~/.gnupg" },
      { path: "/h/.netrc", what: "the credential store ~/.netrc" },
      { path: "/h/.config/gcloud", what: "the credential store ~/.config/gcloud" },
      { path: "/h/.kube", what: "the credential store ~/.kube" },
      { path: "/h/work/secret", what: "~/work/secret, which the user's settings hide" },
      { path: "/abs", what: "/abs, which the user's settings hide" }
    ])
  })

  it("without a home, `~` names nowhere: only absolute places remain", () => {
    expect(privatePlaces({ home: undefined, dataDir: "/d" }).map((place) => place.path)).toEqual(["/d"])
  })

  it("are judged at their real location too, and a root inside one lifts it", () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "places-")))
    try {
      mkdirSync(join(dir, "real-keys"))
      mkdirSync(join(dir, "home"))
      symlinkSync(join(dir, "real-keys"), join(dir, "home", ".ssh"))
      const resolved = resolvePlaces(privatePlaces({ home: join(dir, "home") }))
      const ssh = resolved.find((place) => place.what.endsWith("~/.ssh"))
      expect(ssh?.names).toEqual([join(dir, "home", ".ssh"), join(dir, "real-keys")])
      expect(placeHolding(resolved, join(dir, "real-keys", "id"))?.what).toBe("the credential store ~/.ssh")
      expect(placeHolding(resolved, join(dir, "home", "notes"))).toBeUndefined()
      expect(placesOutside(resolved, [join(dir, "real-keys", "sub")]).some((place) => place.what.endsWith("~/.ssh"))).toBe(false)
      expect(placesOutside(resolved, [join(dir, "home")])).toHaveLength(resolved.length)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
