// WAV (RIFF, 16-bit PCM, mono) written in code: the demo upstream's synthesised speech, and the
// recordings tests and the Playwright fake microphone play. Pure: runs under Bun, Node and in tests.

/** A RIFF/WAVE file around 16-bit little-endian mono samples. */
export function wavFile(samples: Int16Array, sampleRate: number): Uint8Array<ArrayBuffer> {
  const dataBytes = samples.length * 2
  const out = new Uint8Array(44 + dataBytes)
  const view = new DataView(out.buffer)
  const ascii = (at: number, s: string) => {
    for (let i = 0; i < s.length; i++) out[at + i] = s.charCodeAt(i)
  }
  ascii(0, 'RIFF')
  view.setUint32(4, 36 + dataBytes, true)
  ascii(8, 'WAVE')
  ascii(12, 'fmt ')
  view.setUint32(16, 16, true) // fmt chunk size
  view.setUint16(20, 1, true) // PCM
  view.setUint16(22, 1, true) // mono
  view.setUint32(24, sampleRate, true)
  view.setUint32(28, sampleRate * 2, true) // byte rate
  view.setUint16(32, 2, true) // block align
  view.setUint16(34, 16, true) // bits per sample
  ascii(36, 'data')
  view.setUint32(40, dataBytes, true)
  for (let i = 0; i < samples.length; i++) view.setInt16(44 + i * 2, samples[i]!, true)
  return out
}

/**
 * Samples of a soft tone: `seconds` long, at `hz`, faded in and out over 10 ms so it starts and
 * ends without a click; with `warble` the pitch moves a little (it sounds less like a test signal).
 */
export function toneSamples(seconds: number, sampleRate: number, hz = 440, warble = false): Int16Array {
  const n = Math.max(1, Math.round(seconds * sampleRate))
  const fade = Math.min(Math.floor(sampleRate / 100), Math.floor(n / 2))
  const samples = new Int16Array(n)
  let phase = 0
  for (let i = 0; i < n; i++) {
    const f = warble ? hz * (1 + 0.08 * Math.sin((2 * Math.PI * 3 * i) / sampleRate)) : hz
    phase += (2 * Math.PI * f) / sampleRate
    const edge = Math.min(1, i / (fade || 1), (n - 1 - i) / (fade || 1))
    samples[i] = Math.round(9000 * edge * Math.sin(phase))
  }
  return samples
}

/** A WAV of a tone `seconds` long (tests, the fake microphone). */
export const toneWav = (seconds: number, sampleRate = 16_000, hz = 440) => wavFile(toneSamples(seconds, sampleRate, hz), sampleRate)
