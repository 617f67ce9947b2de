/**
 * Reading a command's leading options the way its program does, without knowing every option:
 * an option this table does not know may or may not take a value, so both readings are kept.
 * Used to see through wrappers (`sudo -u x git push`) and global options (`git -C . push`).
 */

/** A word after quote removal; undefined when it is only known at run time. */
export type Word = string | undefined

export interface OptionSpec {
  /** Options followed by a value (`-n 5`, `-n5`, `--adjustment 5`, `--adjustment=5`). */
  readonly withValue: ReadonlySet<string>
  /** Options that stand alone. */
  readonly flags: ReadonlySet<string>
  /** Options whose value, when given, is attached (`-n1024`, `--nofile=1024`); `-n 1024` leaves `1024` an operand. */
  readonly optionalValue: ReadonlySet<string>
  /** How many words follow options that take more than one (`bwrap --bind SRC DEST`). */
  readonly arity: ReadonlyMap<string, number>
  /** A first word that is not an option is an operand (`setarch x86_64 -R cmd`, `setarch -R cmd`). */
  readonly leadingOperand?: boolean
  /** Operands before the command or subcommand (`timeout 5 cmd`, `chroot /new cmd`). */
  readonly operands?: number
  /** Leading `NAME=value` words are part of the options (`env A=1 cmd`). */
  readonly assignments?: boolean
  /** Words starting with `+` are options too (`cargo +nightly build`). */
  readonly plusOptions?: boolean
}

const names = (list: string) => list.split(" ").filter((s) => s.length > 0)

/**
 * An option table from space-separated names. In `withValue`, `--bind:2` takes two words;
 * `optionalValue` lists options whose value can only be attached.
 */
export const spec = (
  withValue: string,
  flags: string,
  extra: Omit<OptionSpec, "withValue" | "flags" | "optionalValue" | "arity"> & { readonly optionalValue?: string } = {}
): OptionSpec => {
  const { optionalValue = "", ...rest } = extra
  const valued = names(withValue).map((name) => name.split(":"))
  return {
    withValue: new Set(valued.map(([name]) => name ?? "")),
    flags: new Set(names(flags)),
    optionalValue: new Set(names(optionalValue)),
    arity: new Map(valued.flatMap(([name, count]): ReadonlyArray<readonly [string, number]> => (name === undefined || count === undefined ? [] : [[name, Number(count)]]))),
    ...rest
  }
}

/** Where the options end: the index of the first word after them, or of a word that cannot be read statically. */
export interface OptionsEnd {
  readonly index: number
  /** The options seen, in order (`-c` for a cluster `-lc` too). */
  readonly seen: ReadonlyArray<string>
  /** True when the end sits on a word known only at run time (the command may be anything). */
  readonly unknown: boolean
}

/** Readings are cut off here: a pathological line gives a bounded answer, never a blow-up. */
const MAX_READINGS = 16

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/

/**
 * Every way the options starting at `from` can end. With only known options there is one;
 * each unknown option doubles them (it may take a value or not). Past a bound, one more end
 * says the rest is unknown, so a line cannot hide its command behind many odd options.
 */
export const optionEnds = (words: ReadonlyArray<Word>, from: number, options: OptionSpec): ReadonlyArray<OptionsEnd> => {
  const ends: Array<OptionsEnd> = []
  let truncated = false
  const walk = (i: number, seen: ReadonlyArray<string>, operandsLeft: number): void => {
    if (ends.length >= MAX_READINGS) {
      truncated = true
      return
    }
    const word = words[i]
    if (i >= words.length) return void ends.push({ index: i, seen, unknown: false })
    if (word === undefined) return void ends.push({ index: i, seen, unknown: true })
    if (word === "--") return void ends.push({ index: i + 1, seen, unknown: false })
    if (options.assignments === true && ASSIGNMENT.test(word)) return walk(i + 1, seen, operandsLeft)
    if (options.plusOptions === true && word.startsWith("+")) return walk(i + 1, [...seen, word], operandsLeft)
    if (!word.startsWith("-") || word === "-") {
      if (operandsLeft > 0) return walk(i + 1, seen, operandsLeft - 1)
      return void ends.push({ index: i, seen, unknown: false })
    }
    if (word.startsWith("--")) {
      const name = word.includes("=") ? word.slice(0, word.indexOf("=")) : word
      if (word.includes("=") || options.flags.has(name) || options.optionalValue.has(name)) return walk(i + 1, [...seen, name], operandsLeft)
      if (options.withValue.has(name)) return walk(i + 1 + (options.arity.get(name) ?? 1), [...seen, name], operandsLeft)
      walk(i + 1, [...seen, name], operandsLeft)
      return walk(i + 2, [...seen, name], operandsLeft)
    }
    // A cluster of short options (`-lc`, `-n5`, `-un`), read letter by letter.
    const cluster = (at: number, seenHere: ReadonlyArray<string>): void => {
      if (at >= word.length) return walk(i + 1, seenHere, operandsLeft)
      const name = `-${word[at]}`
      const rest = at + 1 < word.length
      if (options.flags.has(name)) return cluster(at + 1, [...seenHere, name])
      if (options.optionalValue.has(name)) return walk(i + 1, [...seenHere, name], operandsLeft)
      if (options.withValue.has(name)) return walk(rest ? i + 1 : i + 1 + (options.arity.get(name) ?? 1), [...seenHere, name], operandsLeft)
      // Unknown: a flag, or an option whose value is the rest of the word or the next word.
      // `-chdir=dir` style options carry their value inside the word.
      if (at === 1 && word.includes("=")) return walk(i + 1, [...seenHere, word.slice(0, word.indexOf("="))], operandsLeft)
      cluster(at + 1, [...seenHere, name])
      walk(rest ? i + 1 : i + 2, [...seenHere, name], operandsLeft)
    }
    cluster(1, seen)
  }
  const leading = options.leadingOperand === true && words[from] !== undefined && words[from]?.startsWith("-") === false
  walk(leading ? from + 1 : from, [], options.operands ?? 0)
  return truncated ? [...ends, { index: from, seen: [], unknown: true }] : ends
}
