import type { SandboxShape } from "../../services/Sandbox.js"
import type { EnvironmentPolicy } from "../../services/SubprocessEnvironment.js"
import type { Tool } from "../../services/ToolRouter.js"
import { editFileTool } from "./edit-file.js"
import { currentHome, fixedPlaces, type PlacesNow, privatePlaces } from "../private-places.js"
import { makeGrepTool } from "./grep.js"
import { makeListFilesTool } from "./list-files.js"
import { readFileTool } from "./read-file.js"
import { makeShellTool } from "./shell.js"
import { writeFileTool } from "./write-file.js"

/**
 * The tools that work on the session's workspace on this machine; shell commands run in
 * `sandbox` and inherit what `environment` passes (by default only the fixed allowlist); walks
 * leave out `places` (the agent composes its own: its directories, the secret stores, what the
 * user hides; by default only the secret stores of this home, as no other place is known here).
 */
export const localTools = (
  sandbox: SandboxShape,
  environment?: EnvironmentPolicy,
  places: PlacesNow = fixedPlaces(privatePlaces({ home: currentHome() }))
): ReadonlyArray<Tool> => [
  readFileTool,
  writeFileTool,
  editFileTool,
  makeListFilesTool(places),
  makeGrepTool(places),
  makeShellTool(sandbox, environment)
]
