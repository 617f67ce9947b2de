import { describe, expect, it } from "@effect/vitest"
import { HeadTailBuffer } from "../../../src/layers/tools/head-tail-buffer.js"

describe("HeadTailBuffer", () => {
  it("keeps everything while it fits", () => {
    const buffer = new HeadTailBuffer(4, 4)
    buffer.append(Buffer.from("abc"))
    buffer.append(Buffer.from("defgh"))
    expect(buffer.render()).toBe("abcdefgh")
    expect(buffer.dropped).toBe(0)
  })

  it("keeps the head and the tail and says how much of the middle was dropped", () => {
    const buffer = new HeadTailBuffer(4, 4)
    for (const piece of ["ab", "cdef", "ghijkl", "m", "nopq", "rs"]) buffer.append(Buffer.from(piece))
    expect(buffer.total).toBe(19)
    expect(buffer.dropped).toBe(11)
    expect(buffer.render()).toBe("abcd\n\n[... 11 bytes of output dropped ...]\n\npqrs")
  })

  it("holds at most head + tail bytes, however much goes through", () => {
    const buffer = new HeadTailBuffer(1024, 1024)
    const chunk = Buffer.alloc(65536, "z")
    let peak = 0
    for (let i = 0; i < 200; i++) {
      buffer.append(chunk)
      peak = Math.max(peak, buffer.retained)
    }
    expect(buffer.total).toBe(200 * 65536)
    expect(peak).toBe(2048)
  })

  it("starts the tail on a character boundary", () => {
    const buffer = new HeadTailBuffer(2, 4)
    buffer.append(Buffer.from("ab"))
    buffer.append(Buffer.from("xxxxxxxé✓"))
    // The last 4 bytes are the second byte of "é" and the 3 bytes of "✓".
    expect(buffer.render().endsWith("\n\n✓")).toBe(true)
  })
})
