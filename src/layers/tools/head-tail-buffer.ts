/**
 * Keeps the first `headBytes` and the last `tailBytes` of a byte stream and counts the rest,
 * so a command printing gigabytes costs at most head + tail bytes of memory.
 */
export class HeadTailBuffer {
  private readonly head: Array<Buffer> = []
  private headSize = 0
  private tail: Array<Buffer> = []
  private tailSize = 0
  /** Every byte ever appended. */
  total = 0

  constructor(
    readonly headBytes: number,
    readonly tailBytes: number
  ) {}

  append(chunk: Buffer): void {
    this.total += chunk.length
    let rest = chunk
    if (this.headSize < this.headBytes) {
      const taken = rest.subarray(0, this.headBytes - this.headSize)
      // Copies: a slice would pin the whole (often 64 KiB) pipe chunk it came from.
      this.head.push(Buffer.from(taken))
      this.headSize += taken.length
      rest = rest.subarray(taken.length)
    }
    if (rest.length === 0) return
    const kept = rest.length > this.tailBytes ? rest.subarray(rest.length - this.tailBytes) : rest
    this.tail.push(Buffer.from(kept))
    this.tailSize += kept.length
    this.trimTail()
  }

  /** Bytes held in memory right now. */
  get retained(): number {
    return this.headSize + this.tailSize
  }

  /** Bytes neither in the head nor in the tail. */
  get dropped(): number {
    return this.total - this.retained
  }

  /** Head, a marker saying how much was dropped (if anything), tail; UTF-8. */
  render(): string {
    const head = Buffer.concat(this.head).toString("utf8")
    const tail = Buffer.concat(this.tail)
    if (this.dropped === 0) return head + tail.toString("utf8")
    // Start the tail on a character boundary instead of showing a broken character.
    let start = 0
    while (start < tail.length && start < 3 && ((tail[start] ?? 0) & 0xc0) === 0x80) start++
    return `${head}\n\n[... ${this.dropped} bytes of output dropped ...]\n\n${tail.subarray(start).toString("utf8")}`
  }

  private trimTail(): void {
    let excess = this.tailSize - this.tailBytes
    while (excess > 0) {
      const first = this.tail[0]
      if (first === undefined) return
      if (first.length <= excess) {
        this.tail.shift()
        this.tailSize -= first.length
        excess -= first.length
      } else {
        this.tail[0] = Buffer.from(first.subarray(excess))
        this.tailSize -= excess
        excess = 0
      }
    }
  }
}
