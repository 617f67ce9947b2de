/**
 * A seccomp filter, as bubblewrap's `--seccomp FD` reads it (an array of classic BPF
 * instructions), that makes `socket(AF_UNIX, ...)` fail with EPERM. Read-only mounts do not stop
 * `connect()` on a socket file, and abstract sockets have no file at all, so hiding paths
 * cannot keep a command from the user's tmux, ssh-agent, X11 or Docker; refusing to create the
 * socket holds whatever the path. `socketpair()` (how programs pipe to their children) is left
 * alone, and `io_uring_setup` is refused since io_uring can create sockets without the syscall.
 */

// linux/audit.h
const AUDIT_ARCH_X86_64 = 0xc000003e
const AUDIT_ARCH_I386 = 0x40000003
const AUDIT_ARCH_AARCH64 = 0xc00000b7

// linux/filter.h: BPF_LD|BPF_W|BPF_ABS, BPF_JMP|BPF_JEQ|BPF_K, BPF_RET|BPF_K
const LD_ABS = 0x20
const JEQ = 0x15
const RET = 0x06

// linux/seccomp.h
const RET_ALLOW = 0x7fff0000
const RET_EPERM = 0x00050000 | 1

// struct seccomp_data: nr at 0, arch at 4, args[0] at 16 (its low half, little-endian).
const NR = 0
const ARCH = 4
const ARG0 = 16

const AF_UNIX = 1
/** socketcall(2)'s first argument for socket(2), on i386. */
const SYS_SOCKET = 1
const X32_BIT = 0x40000000

interface Instruction {
  readonly code: number
  readonly jt: number
  readonly jf: number
  readonly k: number
}

const load = (offset: number): Instruction => ({ code: LD_ABS, jt: 0, jf: 0, k: offset })
const ret = (value: number): Instruction => ({ code: RET, jt: 0, jf: 0, k: value })

/** The syscall numbers one architecture's checks look at. */
interface ArchitectureCalls {
  readonly arch: number
  /** socket(2): refused when its first argument is AF_UNIX. */
  readonly socket: ReadonlyArray<number>
  /** Refused outright. */
  readonly refused: ReadonlyArray<number>
  /** i386's socketcall(2): refused when its first argument is SYS_SOCKET (the domain is behind a pointer). */
  readonly socketcall?: number
}

const NATIVE: Partial<Record<NodeJS.Architecture, ReadonlyArray<ArchitectureCalls>>> = {
  x64: [
    // x32 programs run with the same arch and the x32 bit in the number.
    { arch: AUDIT_ARCH_X86_64, socket: [41, X32_BIT | 41], refused: [425, X32_BIT | 425] },
    { arch: AUDIT_ARCH_I386, socket: [359], refused: [425], socketcall: 102 }
  ],
  arm64: [{ arch: AUDIT_ARCH_AARCH64, socket: [198], refused: [425] }]
}

/**
 * One block per architecture: on its arch, every check in turn, then allow; otherwise skip to
 * the next block. Built back to front so each jump's distance is known.
 */
const blockFor = (calls: ArchitectureCalls): ReadonlyArray<Instruction> => {
  const body: Array<Instruction> = []
  // Checks against the syscall number already loaded; each ends in its own return.
  for (const nr of calls.refused) body.push({ code: JEQ, jt: 0, jf: 1, k: nr }, ret(RET_EPERM))
  const byFirstArgument = [...calls.socket.map((nr) => ({ nr, value: AF_UNIX })), ...(calls.socketcall === undefined ? [] : [{ nr: calls.socketcall, value: SYS_SOCKET }])]
  for (const { nr, value } of byFirstArgument) {
    // nr matches: load arg0, compare, refuse or allow; otherwise skip those four.
    body.push({ code: JEQ, jt: 0, jf: 4, k: nr }, load(ARG0), { code: JEQ, jt: 0, jf: 1, k: value }, ret(RET_EPERM), ret(RET_ALLOW))
  }
  body.push(ret(RET_ALLOW))
  // On another arch, jump past the number load and the body to the next block.
  return [load(ARCH), { code: JEQ, jt: 0, jf: body.length + 1, k: calls.arch }, load(NR), ...body]
}

/** The filter for this machine's architecture, or undefined where none is known (the sandbox then runs without it). */
export const unixSocketFilter = (arch: NodeJS.Architecture = process.arch): Buffer | undefined => {
  const blocks = NATIVE[arch]
  if (blocks === undefined) return undefined
  const program = [...blocks.flatMap(blockFor), ret(RET_ALLOW)]
  const buffer = Buffer.alloc(program.length * 8)
  program.forEach((instruction, i) => {
    buffer.writeUInt16LE(instruction.code, i * 8)
    buffer.writeUInt8(instruction.jt, i * 8 + 2)
    buffer.writeUInt8(instruction.jf, i * 8 + 3)
    buffer.writeUInt32LE(instruction.k >>> 0, i * 8 + 4)
  })
  return buffer
}
