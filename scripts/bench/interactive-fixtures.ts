import SqliteDatabase from "better-sqlite3"
import { Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { cleanEnv, timedRun } from "./processes.js"

/**
 * What the interactive session's bench plays: a long streamed answer for the replay server,
 * and a long session written by the CLI itself (scripted `run` turns) to resume.
 */

// Words of a plausible answer; a chunk is a word and its space, about what a model streams per token.
const WORDS = ["the", "session", "reads", "each", "event", "once,", "then", "draws", "only", "what", "changed", "on", "screen;", "a", "reader", "follows"]
const PARAGRAPH = 50

/** The answer's last chunk: found nowhere before it, so its arrival on the terminal is unambiguous. */
export const LAST_CHUNK = "endmark7q3."

/** `chunks` pieces of Markdown prose: paragraphs of PARAGRAPH words, each opened by a numbered mark (`para-7`) a check can find. */
export const answerChunks = (chunks: number): ReadonlyArray<string> =>
  Array.from({ length: chunks }, (_, i) => {
    if (i === chunks - 1) return LAST_CHUNK
    if (i % PARAGRAPH === 0) return `para-${i / PARAGRAPH} `
    return `${WORDS[i % WORDS.length]}${i % PARAGRAPH === PARAGRAPH - 1 ? "\n\n" : " "}`
  })

/** The paragraph marks the whole answer shows, in order. */
export const paragraphMarks = (chunks: number): ReadonlyArray<string> =>
  Array.from({ length: Math.ceil((chunks - 1) / PARAGRAPH) }, (_, i) => `para-${i}`)

/** Where the last chunk is among `streamFixture`'s events (two opening events come before the chunks, three closing ones after). */
export const lastChunkEvent = (chunks: ReadonlyArray<string>) => ({ index: 1 + chunks.length, of: chunks.length + 5 })

/** A replay fixture: one Anthropic Messages stream of `chunks` text deltas, each written `delayMs` after the one before. */
export const streamFixture = (chunks: ReadonlyArray<string>, delayMs: number) => ({
  format: "anthropic",
  responses: [
    {
      kind: "stream",
      delayMs,
      events: [
        {
          event: "message_start",
          data: {
            type: "message_start",
            message: {
              id: "msg_long", type: "message", role: "assistant", model: "replay", content: [],
              stop_reason: null, stop_sequence: null, usage: { input_tokens: 100, output_tokens: 1 }
            }
          }
        },
        { event: "content_block_start", data: { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } } },
        ...chunks.map((text) => ({ event: "content_block_delta", data: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } } })),
        { event: "content_block_stop", data: { type: "content_block_stop", index: 0 } },
        { event: "message_delta", data: { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: chunks.length } } },
        { event: "message_stop", data: { type: "message_stop" } }
      ]
    }
  ]
})

const Row = Schema.Struct({ event: Schema.String })
const Stamped = Schema.Struct({ type: Schema.String, timestamp: Schema.String })

/** A session's events as stored (type and timestamp), in order, from the CLI's SQLite file once it has closed or committed them. */
export const storedEvents = (dataDir: string, sessionId: string): ReadonlyArray<typeof Stamped.Type> => {
  const db = new SqliteDatabase(path.join(dataDir, "custom-agent.db"), { readonly: true, fileMustExist: true })
  try {
    const rows = Schema.decodeUnknownSync(Schema.Array(Row))(db.prepare("SELECT event FROM events WHERE session_id = ? ORDER BY sequence").all(sessionId))
    return rows.map((row) => Schema.decodeUnknownSync(Stamped)(JSON.parse(row.event)))
  } finally {
    db.close()
  }
}

export const sessionIdOf = (stderr: string): string => {
  const id = /^session (ses_\S+)$/m.exec(stderr)?.[1]
  if (id === undefined) throw new Error(`no session id in the CLI's stderr:\n${stderr}`)
  return id
}

/** A turn's answer ends with this: once the last turn's is on the terminal, the resumed history is. */
const turnEnd = (turn: number) => `turnend${turn}q.`

const STEPS_PER_TURN = 30
const ANSWER_WORDS = 100

/** One turn of the long session: STEPS_PER_TURN read_file calls, each after a sentence streamed word by word, then an answer of ANSWER_WORDS words. */
const turnScript = (turn: number) => ({
  responses: [
    ...Array.from({ length: STEPS_PER_TURN }, (_, step) => ({
      chunks: [
        ...`Reading notes.txt once more, step ${step + 1} of turn ${turn}. `.split(/(?<= )/).map((text) => ({ text })),
        { toolCall: { name: "read_file", input: { path: "notes.txt" } } }
      ]
    })),
    `Turn ${turn} is done: ${Array.from({ length: ANSWER_WORDS }, (_, i) => WORDS[i % WORDS.length]).join(" ")} ${turnEnd(turn)}`
  ]
})

/**
 * Writes a session of at least `events` events into `dataDir` the way a person would make one:
 * `custom-agent run` turn after turn (`--session` continuing it) with the scripted model, tool
 * calls and streamed answers. Returns its id, its exact event count, its turns' prompts and
 * the mark its last answer ends with.
 */
export const prepareLongSession = async (cliPath: string, dirs: { readonly ws: string; readonly data: string; readonly home: string; readonly dir: string }, events: number) => {
  let sessionId: string | undefined
  let count = 0
  const prompts: Array<string> = []
  for (let turn = 1; count < events; turn++) {
    const script = path.join(dirs.dir, `turn-${turn}.json`)
    fs.writeFileSync(script, JSON.stringify(turnScript(turn)))
    const prompt = `Turn ${turn}: read the notes again`
    const r = await timedRun(
      [cliPath, "run", prompt, "--script", script, "--data-dir", dirs.data, "--approve", "allow-reads", "--max-steps", String(STEPS_PER_TURN + 1), ...(sessionId === undefined ? [] : ["--session", sessionId])],
      { cwd: dirs.ws, env: cleanEnv(dirs.home) }
    )
    if (r.code !== 0) throw new Error(`preparing the long session: turn ${turn} exited with ${r.code}\n${r.stderr.slice(-2000)}`)
    sessionId ??= sessionIdOf(r.stderr)
    prompts.push(prompt)
    count = storedEvents(dirs.data, sessionId).length
  }
  if (sessionId === undefined) throw new Error("preparing the long session: no turn ran")
  return { sessionId, events: count, prompts, lastMark: turnEnd(prompts.length) }
}
