import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { createRequire } from "node:module"
import type { Parser } from "web-tree-sitter"
import { messageOf } from "../../domain/cause-message.js"

/** The bash grammar could not be loaded: every shell call then asks. */
export class ShellParserError extends Schema.TaggedError<ShellParserError>()("ShellParserError", {
  message: Schema.String,
  /** The failure underneath, when there was one, kept for whoever handles or logs this. */
  cause: Schema.optional(Schema.Defect)
}) {}

const require = createRequire(import.meta.url)

let runtime: Promise<typeof import("web-tree-sitter")> | undefined

/**
 * web-tree-sitter's module and WebAssembly runtime, imported and initialised once per process
 * on first use: a CLI run without a shell call never pays for them. The wasm file is located
 * from the installed package, so the CLI bundle finds it too.
 */
const treeSitter = () =>
  (runtime ??= import("web-tree-sitter")
    .then(async (module) => {
      const wasm = require.resolve("web-tree-sitter/web-tree-sitter.wasm")
      await module.Parser.init({ locateFile: () => wasm })
      return module
    })
    .catch((error: unknown) => {
      runtime = undefined
      throw error
    }))

/**
 * A loader for a parser of the grammar at `grammarPath`, memoized: one parser serves every
 * call (parsing is synchronous, so calls never interleave on it). A failed load is not
 * remembered, so a later call tries again.
 */
export const makeParserLoader = (grammarPath: () => string): Effect.Effect<Parser, ShellParserError> => {
  let loading: Promise<Parser> | undefined
  const load = async () => {
    const { Language, Parser } = await treeSitter()
    const language = await Language.load(grammarPath())
    const parser = new Parser()
    parser.setLanguage(language)
    return parser
  }
  return Effect.tryPromise({
    try: () => {
      loading ??= load().catch((error: unknown) => {
        loading = undefined
        throw error
      })
      return loading
    },
    catch: (error) => new ShellParserError({ message: messageOf(error), cause: error })
  })
}

/** The process's bash parser (tree-sitter-bash). */
export const bashParser = makeParserLoader(() => require.resolve("tree-sitter-bash/tree-sitter-bash.wasm"))
