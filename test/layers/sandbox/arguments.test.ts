import { describe, expect, it } from "@effect/vitest"
import { type BwrapCommand, bwrapArguments, hiddenByTmp } from "../../../src/layers/sandbox/arguments.js"

const command: BwrapCommand = {
  network: false,
  newSession: false,
  workspaceRoot: "/home/u/ws",
  cwd: "/home/u/ws/sub",
  mounts: { pinned: ["/home/u/ws/.git"], readOnly: ["/home/u/ws/.custom-agent", "/home/u/ws/.git/hooks"] },
  socketDirs: ["/run"],
  visible: [],
  hidden: [],
  seccompFd: undefined
}

/** The flag pairs and triples in order, as `flag a b` strings, to compare mount order at a glance. */
const mounts = (args: ReadonlyArray<string>) => {
  const out: Array<string> = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? ""
    if (arg === "--bind" || arg === "--ro-bind" || arg === "--ro-bind-try") out.push(`${arg} ${args[++i]} ${args[++i]}`)
    else if (arg === "--tmpfs" || arg === "--dev" || arg === "--proc") out.push(`${arg} ${args[++i]}`)
  }
  return out
}

describe("bubblewrap's command line", () => {
  it("mounts the host read-only, private /dev, /proc, /tmp, hides /run while offline, then the workspace, pins and read-only binds, in that order", () => {
    const args = bwrapArguments(command)
    expect(mounts(args)).toEqual([
      "--ro-bind / /",
      "--dev /dev",
      "--proc /proc",
      "--tmpfs /tmp",
      "--tmpfs /run",
      "--bind /home/u/ws /home/u/ws",
      "--bind /home/u/ws/.git /home/u/ws/.git",
      "--ro-bind /home/u/ws/.custom-agent /home/u/ws/.custom-agent",
      "--ro-bind /home/u/ws/.git/hooks /home/u/ws/.git/hooks"
    ])
    expect(args.slice(-3)).toEqual(["--chdir", "/home/u/ws/sub", "--"])
  })

  it("unshares every namespace, dies with us and drops all capabilities; the network and a new session only when asked", () => {
    const closed = bwrapArguments(command)
    expect(closed.slice(0, 4)).toEqual(["--unshare-all", "--die-with-parent", "--cap-drop", "ALL"])
    expect(closed).not.toContain("--share-net")
    expect(closed).not.toContain("--new-session")
    const open = bwrapArguments({ ...command, network: true, newSession: true })
    expect(open.slice(0, 6)).toEqual(["--unshare-all", "--share-net", "--die-with-parent", "--new-session", "--cap-drop", "ALL"])
    // With the network open, /run (name resolution, for one) stays as the host has it.
    expect(mounts(open)).not.toContain("--tmpfs /run")
  })

  it("shows read-only the /tmp directories a command names, before the workspace, so a program installed there still starts", () => {
    expect(hiddenByTmp(["/usr/bin/node", "/tmp/repo/node_modules/tsx/cli.mjs", "/tmp/repo/server.ts", "/tmp/other", "tmp/rel", "/tmpx/y", "/tmp/../etc"])).toEqual([
      "/tmp/repo",
      "/tmp/other"
    ])
    const args = bwrapArguments({ ...command, workspaceRoot: "/tmp/repo/ws", cwd: "/tmp/repo/ws", visible: ["/tmp/repo"] })
    expect(mounts(args).slice(3, 7)).toEqual(["--tmpfs /tmp", "--tmpfs /run", "--ro-bind-try /tmp/repo /tmp/repo", "--bind /tmp/repo/ws /tmp/repo/ws"])
  })

  it("hides a folder holding the workspace before binding it, every other hidden path after the protected binds, read-only", () => {
    const args = bwrapArguments({
      ...command,
      hidden: [
        { path: "/home/u", kind: "directory" },
        { path: "/home/u/ws", kind: "directory" },
        { path: "/home/u/ws/data", kind: "directory" },
        { path: "/home/u/.netrc", kind: "file" }
      ]
    })
    expect(mounts(args)).toEqual([
      "--ro-bind / /",
      "--dev /dev",
      "--proc /proc",
      "--tmpfs /tmp",
      "--tmpfs /run",
      "--tmpfs /home/u",
      "--bind /home/u/ws /home/u/ws",
      "--bind /home/u/ws/.git /home/u/ws/.git",
      "--ro-bind /home/u/ws/.custom-agent /home/u/ws/.custom-agent",
      "--ro-bind /home/u/ws/.git/hooks /home/u/ws/.git/hooks",
      "--tmpfs /home/u/ws/data",
      "--ro-bind /dev/null /home/u/.netrc"
    ])
    expect(args.filter((arg) => arg === "--remount-ro")).toHaveLength(2)
  })

  it("reads a seccomp filter from the descriptor it is given, and only then", () => {
    expect(bwrapArguments(command)).not.toContain("--seccomp")
    const args = bwrapArguments({ ...command, seccompFd: 9 })
    expect(args.slice(args.indexOf("--seccomp"), args.indexOf("--seccomp") + 2)).toEqual(["--seccomp", "9"])
  })
})
