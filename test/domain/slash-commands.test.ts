import { describe, expect, it } from "@effect/vitest"
import { expandCommand, parseTypedCommand, positionalArguments, typedLine } from "../../src/domain/slash-commands.js"

describe("a typed slash command", () => {
  it("is `/name`, then whitespace and the arguments (trimmed, lines kept)", () => {
    expect(parseTypedCommand("/review")).toEqual({ name: "review", arguments: "" })
    expect(parseTypedCommand("/review  42 high  ")).toEqual({ name: "review", arguments: "42 high" })
    expect(parseTypedCommand("/fix_issue.v2\nfirst line\nsecond line")).toEqual({ name: "fix_issue.v2", arguments: "first line\nsecond line" })
  })

  it("names no command when the word after `/` is not a command name: paths and other text are prompts", () => {
    expect(parseTypedCommand("/etc/hosts is odd")).toBeUndefined()
    expect(parseTypedCommand("/ review")).toBeUndefined()
    expect(parseTypedCommand("/")).toBeUndefined()
    expect(parseTypedCommand(" /review")).toBeUndefined()
    expect(parseTypedCommand("review /x")).toBeUndefined()
    expect(parseTypedCommand("/frontend:component")).toBeUndefined()
    expect(parseTypedCommand(`/${"a".repeat(65)}`)).toBeUndefined()
    expect(parseTypedCommand("/-rf")).toBeUndefined()
  })

  it("is recorded as the line that was typed", () => {
    expect(typedLine({ name: "review", arguments: "" })).toBe("/review")
    expect(typedLine({ name: "review", arguments: "42 high" })).toBe("/review 42 high")
  })
})

describe("expanding a command's body", () => {
  it("puts the whole argument text for $ARGUMENTS and each word for $1, $2 ...; a missing one is empty", () => {
    expect(expandCommand("Fix issue #$ARGUMENTS now.", "123 high")).toBe("Fix issue #123 high now.")
    expect(expandCommand("Review PR #$1 with priority $2, owner '$3'.", "456 high")).toBe("Review PR #456 with priority high, owner ''.")
    expect(expandCommand("$ARGUMENTS and $ARGUMENTS", "x")).toBe("x and x")
    expect(expandCommand("$10/$1", "a b c d e f g h i j")).toBe("j/a")
  })

  it("reads quoted words as one, without their quotes", () => {
    expect(positionalArguments(`"fix the bug" high 'and more' x`)).toEqual(["fix the bug", "high", "and more", "x"])
    expect(expandCommand("[$1] [$2]", `"fix the bug" high`)).toBe("[fix the bug] [high]")
  })

  it("replaces in one pass: an argument's own $1 or $ARGUMENTS stays as typed, and $& means nothing", () => {
    expect(expandCommand("a=$1 b=$2", "$2 $ARGUMENTS")).toBe("a=$2 b=$ARGUMENTS")
    expect(expandCommand("all: $ARGUMENTS", "$& $1 $$")).toBe("all: $& $1 $$")
  })

  it("leaves $0, $ARGUMENTSX and other dollar words alone", () => {
    expect(expandCommand("$0 $ARGUMENTSX $HOME $1", "a")).toBe("$0 $ARGUMENTSX $HOME a")
  })

  it("appends the arguments to a body without placeholders, as Claude Code does, so they are not lost; none, nothing", () => {
    expect(expandCommand("Summarise the changes.", "in French")).toBe("Summarise the changes.\n\nARGUMENTS: in French")
    expect(expandCommand("Summarise the changes.", "")).toBe("Summarise the changes.")
    expect(expandCommand("Say $ARGUMENTS.", "")).toBe("Say .")
  })

  it("runs nothing: Claude Code's !`command` and @file stay text", () => {
    const body = "Status: !`git status`\nConfig: @~/.ssh/id_rsa\nArgs: $ARGUMENTS"
    expect(expandCommand(body, "!`rm -rf /`")).toBe("Status: !`git status`\nConfig: @~/.ssh/id_rsa\nArgs: !`rm -rf /`")
  })
})
