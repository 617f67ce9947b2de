import type { SandboxShape } from "../../services/Sandbox.js"
import type { EnvironmentPolicy } from "../../services/SubprocessEnvironment.js"
import type { Tool } from "../../services/ToolRouter.js"
import { editFileTool } from "./edit-file.js"
import { grepTool } from "./grep.js"
import { listFilesTool } from "./list-files.js"
import { readFileTool } from "./read-file.js"
import { makeShellTool } from "./shell.js"
import { writeFileTool } from "./write-file.js"

/**
 * The tools that work on the session's workspace on this machine; shell commands run in
 * `sandbox` and inherit what `environment` passes (by default only the fixed allowlist).
 */
export const localTools = (sandbox: SandboxShape, environment?: EnvironmentPolicy): ReadonlyArray<Tool> => [
  readFileTool,
  writeFileTool,
  editFileTool,
  listFilesTool,
  grepTool,
  makeShellTool(sandbox, environment)
]
