import * as Permissions from "../layers/permission/engine.js"
import { approvalsFile, trustFile, userPermissionsFile } from "./locations.js"

/** The permission engine on the user's rules and the data directory's answers and trust, for commands that only consult it. */
export const permissionsLayer = (configDir: string, dataDir: string) =>
  Permissions.layer({ userRulesFile: userPermissionsFile(configDir), approvalsFile: approvalsFile(dataDir), trustFile: trustFile(dataDir) })
