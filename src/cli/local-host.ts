import * as Option from "effect/Option"
import { hostLayer } from "../app/host.js"
import { resolveConfigDir, resolveDataDir, type StoreKind } from "../app/locations.js"
import { packageVersion } from "../app/package-root.js"

/**
 * The agent over the local data dir for commands that ask no model and run no command (session
 * and memory commands): the scripted model and no sandbox to detect.
 */
export const localAgentConfig = (args: { readonly dataDir: Option.Option<string>; readonly store: StoreKind }) => ({
  dataDir: resolveDataDir(Option.getOrUndefined(args.dataDir)),
  configDir: resolveConfigDir(),
  store: args.store,
  model: { spec: "scripted" },
  version: packageVersion(),
  sandbox: { mode: "off", network: false }
} as const)

/**
 * The host over the local data dir, for session commands that must do what a server does (an
 * export closes a turn a dead process left open, an import checks the log).
 */
export const localHostLayer = (args: { readonly dataDir: Option.Option<string>; readonly store: StoreKind }) => hostLayer(localAgentConfig(args))
