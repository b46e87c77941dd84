// What a PDF says, read with Debian's poppler-utils (pdftotext, pdfinfo, pdffonts; .ci/run installs
// them): tests assert on the text a person would read, not on the bytes a library wrote.

async function run(argv: string[], input: Uint8Array): Promise<string> {
  const proc = Bun.spawn(argv, { stdin: input, stdout: 'pipe', stderr: 'pipe' })
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  if (code !== 0) throw new Error(`${argv[0]} exited with ${code}: ${err}`)
  return out
}

/**
 * The text of a PDF in reading order, whitespace collapsed to single spaces (no-break spaces too),
 * and a line broken after a hyphen joined back («договору-\nоферте» → «договору-оферте»).
 */
export async function pdfText(pdf: Uint8Array): Promise<string> {
  const text = await run(['pdftotext', '-enc', 'UTF-8', '-', '-'], pdf)
  return text
    .replace(/-\n/g, '-')
    .replace(/[\s\u00a0]+/g, ' ')
    .trim()
}

/** pdfinfo's fields (Pages, Title, Page size, …). */
export async function pdfInfo(pdf: Uint8Array): Promise<Record<string, string>> {
  const out = await run(['pdfinfo', '-enc', 'UTF-8', '-'], pdf)
  return Object.fromEntries(out.split('\n').flatMap((line) => (line.includes(':') ? [[line.slice(0, line.indexOf(':')).trim(), line.slice(line.indexOf(':') + 1).trim()]] : [])))
}

/** pdffonts' table: each font's name and whether it is embedded. */
export async function pdfFonts(pdf: Uint8Array): Promise<Array<{ name: string; embedded: boolean }>> {
  const out = await run(['pdffonts', '-'], pdf)
  return out
    .split('\n')
    .slice(2)
    .filter(Boolean)
    .map((line) => {
      const cols = line.trim().split(/\s+/)
      // name type [encoding…] emb sub uni object ID: `emb` is the fifth column from the end
      return { name: cols[0]!, embedded: cols.at(-5) === 'yes' }
    })
}
