import { Effect } from "effect"
import { runMain } from "../../src/cli/main.js"

/**
 * The CLI from source, counting effect operations: every exit of a fiber's run loop adds the
 * operations it ran (`currentOpCount`, reset on each entry), and the total goes to stderr at
 * exit as `effect operations: <n>`. Relies on FiberRuntime internals of effect 3; a
 * diagnostic for `npm run bench -- effect-ops`, not part of the product.
 */

interface RunLoopOwner {
  currentOpCount: number
  runLoop: (this: RunLoopOwner, effect: unknown) => unknown
}

const isRunLoopOwner = (value: unknown): value is RunLoopOwner =>
  typeof value === "object" && value !== null && "runLoop" in value && typeof value.runLoop === "function"

const fiberPrototype: unknown = Object.getPrototypeOf(Effect.runFork(Effect.void))
if (!isRunLoopOwner(fiberPrototype)) throw new Error("effect's FiberRuntime has no runLoop: this effect version cannot be counted")
let operations = 0
const runLoop = fiberPrototype.runLoop
fiberPrototype.runLoop = function (effect) {
  const next = runLoop.call(this, effect)
  operations += this.currentOpCount
  return next
}
process.on("exit", () => process.stderr.write(`effect operations: ${operations}\n`))
runMain(process.argv)
