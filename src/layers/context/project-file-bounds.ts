import * as path from "node:path"
import { placeHolding, placesOutside, type PrivatePlace, resolvePlaces } from "../private-places.js"
import { isWithin, realLocation } from "../tools/workspace-paths.js"

/**
 * Where a project's file read as instructions, a skill or an agent definition may really lie.
 * Such a file goes into the model's context as trusted instructions, so a link must not pull
 * in anything else: a file above the workspace in the same repository (`../.env`), a secret
 * store, the agent's own data. The user's own files (in their config directory) are not
 * judged here: the user is trusted.
 */
export interface ProjectFileBounds {
  /** The session's workspace: a file is read where it really lies inside it. */
  readonly workspaceRoot: string
  /**
   * The folder the loader looked in (the repository root, or a folder between it and the
   * workspace): a file found below it through no link at all is that folder's own (the
   * repository's `AGENTS.md` above a workspace in a subfolder), read where it lies.
   */
  readonly lookedIn: string
  /** Never read from these, though the workspace hold them (unless the workspace lies in one). */
  readonly privatePlaces: ReadonlyArray<PrivatePlace>
}

/**
 * Why the project file `file`, really at `real`, is not read; undefined when it may be. A link
 * is judged where it leads: inside the workspace, and in no private place.
 */
export const refusedProjectFile = (file: string, real: string, bounds: ProjectFileBounds): string | undefined => {
  const workspace = realLocation(bounds.workspaceRoot)
  const own = path.join(realLocation(bounds.lookedIn), path.relative(bounds.lookedIn, file))
  const where = isWithin(bounds.lookedIn, file) && real === own ? "own" : isWithin(workspace, real) ? "inside" : undefined
  if (where === undefined) return `${file} leads outside the workspace (to ${real}): a project's file is read only from inside the workspace`
  const place = placeHolding(placesOutside(resolvePlaces(bounds.privatePlaces), [bounds.workspaceRoot, workspace]), real)
  if (place !== undefined) return `${file} leads into ${place.what} (${real}): a project's file is never read from there`
  return undefined
}
