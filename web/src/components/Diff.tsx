const classOf = (line: string) => {
  if (line.startsWith("+++") || line.startsWith("---")) return "file"
  if (line.startsWith("@@")) return "hunk"
  if (line.startsWith("+")) return "add"
  if (line.startsWith("-")) return "del"
  return "ctx"
}

/** Whether a text is a unified diff (the edit tools' `detail` and `data.diff` are). */
export const looksLikeDiff = (text: string) => /^--- .*\n\+\+\+ /m.test(text)

export const Diff = ({ text }: { readonly text: string }) => (
  <pre class="diff">
    {text
      .replace(/\n$/, "")
      .split("\n")
      .map((line, i) => (
        <div key={i} class={classOf(line)}>
          {line === "" ? " " : line}
        </div>
      ))}
  </pre>
)
