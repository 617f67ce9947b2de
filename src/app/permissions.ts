import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Permissions from "../layers/permission/engine.js"
import { checkDataDir } from "../layers/private-files.js"
import { approvalsFile, trustFile, userPermissionsFile } from "./locations.js"

/**
 * The permission engine on the user's rules and the data directory's answers and trust, for
 * commands that only consult it. A data directory another user could write is refused before
 * its approvals or trust file is read (either would hand that user the agent's authority).
 */
export const permissionsLayer = (configDir: string, dataDir: string) =>
  Layer.unwrapEffect(
    checkDataDir(dataDir).pipe(
      Effect.as(Permissions.layer({ userRulesFile: userPermissionsFile(configDir), approvalsFile: approvalsFile(dataDir), trustFile: trustFile(dataDir) }))
    )
  )
