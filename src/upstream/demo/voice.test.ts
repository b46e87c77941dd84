// The demo's voice endpoints (protocols.md 1.14): speech is a WAV tone whose length follows the text,
// with X-Generation-Id and a /generation entry; transcription takes the router's JSON and names the
// recording's duration; the duration reader behind it knows WAV, Ogg Opus and WebM.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { audioInfo, formatHint, webmSeconds } from '../../lib/audio-duration'
import { oggOpus, toneWav } from '../../test-support/audio'
import type { RunningFakeUpstream } from './index'
import { startDemoForTest, until } from './test-setup'
import { speechSeconds } from './voice'

let up: RunningFakeUpstream
beforeAll(async () => {
  ;({ up } = await startDemoForTest({ faults: true, tokenDelayMs: 1 }))
})
afterAll(() => up.stop())

const post = (path: string, body: unknown) => fetch(`${up.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })

describe('POST /audio/speech', () => {
  test('a WAV tone as long as the text, a gen-tts id and its cost at /generation', async () => {
    const input = 'Короткая фраза для озвучки'
    const res = await post('/audio/speech', { model: 'openai/gpt-4o-mini-tts', input, voice: 'alloy', response_format: 'mp3' })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('audio/wav')
    const id = res.headers.get('x-generation-id')!
    expect(id).toMatch(/^gen-tts-\d+-[A-Za-z0-9]{20}$/)
    const wav = new Uint8Array(await res.arrayBuffer())
    const view = new DataView(wav.buffer)
    expect(new TextDecoder().decode(wav.slice(0, 4))).toBe('RIFF')
    expect(view.getUint32(4, true)).toBe(wav.length - 8)
    expect(new TextDecoder().decode(wav.slice(8, 16))).toBe('WAVEfmt ')
    expect(view.getUint32(24, true)).toBe(24_000)
    const info = await audioInfo(wav)
    expect(info).toEqual({ format: 'wav', seconds: expect.closeTo(speechSeconds([...input].length), 3) })
    const stats = await until(() => up.generations.get(id))
    expect(stats).toMatchObject({ model: 'openai/gpt-4o-mini-tts', api_type: 'speech', tokens_prompt: [...input].length, cancelled: false })
    expect(stats.total_cost).toBeCloseTo([...input].length * 0.000015, 12)
    const lookup = await fetch(`${up.url}/generation?id=${id}`)
    expect(((await lookup.json()) as any).data.id).toBe(id)
    // Longer text, longer audio.
    const longer = await post('/audio/speech', { model: 'openai/gpt-4o-mini-tts', input: input.repeat(3), voice: 'alloy', response_format: 'wav' })
    expect((await audioInfo(new Uint8Array(await longer.arrayBuffer())))!.seconds).toBeGreaterThan(info!.seconds * 2)
  })

  test('refuses what the router refuses, as JSON errors', async () => {
    const cases: Array<[unknown, string]> = [
      [{ model: 'openai/whisper-1', input: 'x', voice: 'alloy' }, 'not a text-to-speech model'],
      [{ model: 'openai/gpt-4o-mini-tts', input: '', voice: 'alloy' }, 'input'],
      [{ model: 'openai/gpt-4o-mini-tts', input: 'x', response_format: 'ogg' }, 'response_format'],
      [{ model: 'openai/gpt-4o-mini-tts', input: 'x', speed: 9 }, 'speed'],
    ]
    for (const [body, message] of cases) {
      const res = await post('/audio/speech', body)
      expect(res.status).toBe(400)
      expect(((await res.json()) as any).error.message).toContain(message)
    }
  })
})

describe('POST /audio/transcriptions', () => {
  test('the router’s JSON: a transcript naming the duration, usage in seconds and cost', async () => {
    const res = await post('/audio/transcriptions', { model: 'openai/whisper-1', input_audio: { data: Buffer.from(toneWav(2.4)).toString('base64'), format: 'wav' } })
    expect(res.status).toBe(200)
    const body = (await res.json()) as any
    expect(body.text).toContain('2,4 с')
    expect(body.usage).toEqual({ seconds: 2.4, cost: expect.closeTo(3 * 0.0001, 12) })
    expect(up.generations.get(res.headers.get('x-generation-id')!)).toMatchObject({ api_type: 'transcription', total_cost: body.usage.cost })
  })

  test('a token-priced model reports tokens; English asks for an English transcript', async () => {
    const res = await post('/audio/transcriptions', {
      model: 'openai/gpt-4o-mini-transcribe',
      language: 'en',
      input_audio: { data: Buffer.from(oggOpus(5)).toString('base64'), format: 'ogg' },
    })
    const body = (await res.json()) as any
    expect(body.text).toContain('5 s')
    expect(body.usage).toMatchObject({ input_tokens: 50, total_tokens: 50 + body.usage.output_tokens })
    expect(body.usage.cost).toBeCloseTo(50 * 0.000003 + body.usage.output_tokens * 0.000005, 12)
  })

  test('multipart, data: URIs, unknown formats and undecodable audio are refused', async () => {
    const form = new FormData()
    form.set('model', 'openai/whisper-1')
    form.set('file', new Blob([toneWav(1)]), 'a.wav')
    expect((await fetch(`${up.url}/audio/transcriptions`, { method: 'POST', body: form })).status).toBe(400)
    const wav = Buffer.from(toneWav(1)).toString('base64')
    for (const input_audio of [
      { data: `data:audio/wav;base64,${wav}`, format: 'wav' },
      { data: wav, format: 'aiff' },
      { data: Buffer.from('not audio').toString('base64'), format: 'mp3' },
    ]) {
      expect((await post('/audio/transcriptions', { model: 'openai/whisper-1', input_audio })).status).toBe(400)
    }
  })
})

describe('reading the duration', () => {
  test('WAV, Ogg Opus; formats named by extension or type; junk is null', async () => {
    expect(await audioInfo(toneWav(1.5))).toEqual({ seconds: 1.5, format: 'wav' })
    expect(await audioInfo(oggOpus(61.2))).toEqual({ seconds: expect.closeTo(61.2, 3), format: 'ogg' })
    expect(await audioInfo(new TextEncoder().encode('hello'), 'mp3')).toBeNull()
    expect(await audioInfo(new Uint8Array(0))).toBeNull()
    expect(formatHint('Voice message.OPUS')).toBe('ogg')
    expect(formatHint('x.bin', 'audio/webm;codecs=opus')).toBe('webm')
    expect(formatHint('x.bin')).toBeUndefined()
  })

  test('WebM as MediaRecorder writes it (no Duration, clusters of unknown size): the last block’s time', () => {
    // EBML header, Segment (unknown size), two Clusters (unknown size) with SimpleBlocks.
    const id = (...b: number[]) => b
    const unknown = [0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]
    const el = (idBytes: number[], body: number[]) => [...idBytes, 0x80 | body.length, ...body]
    const block = (time: number) => el(id(0xa3), [0x81, (time >> 8) & 0xff, time & 0xff, 0x80, 0x00, 0x00])
    const cluster = (time: number, blocks: number[]) => [...id(0x1f, 0x43, 0xb6, 0x75), ...unknown, ...el(id(0xe7), [(time >> 8) & 0xff, time & 0xff]), ...blocks.flatMap(block)]
    const bytes = Uint8Array.from([
      ...el(id(0x1a, 0x45, 0xdf, 0xa3), el(id(0x42, 0x82), [0x77, 0x65, 0x62, 0x6d])),
      ...id(0x18, 0x53, 0x80, 0x67),
      ...unknown,
      ...el(id(0x15, 0x49, 0xa9, 0x66), el(id(0x2a, 0xd7, 0xb1), [0x0f, 0x42, 0x40])),
      ...cluster(0, [0, 20, 40]),
      ...cluster(2000, [0, 20, 980]),
    ])
    expect(webmSeconds(bytes)).toBeCloseTo(2.98, 6)
  })

  test('audioInfo times such a WebM although music-metadata gives up on its segment of unknown size', async () => {
    const unknown = [0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]
    const bytes = Uint8Array.from([
      ...[0x1a, 0x45, 0xdf, 0xa3, 0x87, 0x42, 0x82, 0x84, 0x77, 0x65, 0x62, 0x6d],
      ...[0x18, 0x53, 0x80, 0x67, ...unknown],
      ...[0x1f, 0x43, 0xb6, 0x75, ...unknown, 0xe7, 0x82, 0x03, 0xe8],
      ...[0xa3, 0x86, 0x81, 0x01, 0xf4, 0x80, 0x00, 0x00],
    ])
    expect(await audioInfo(bytes)).toEqual({ seconds: 1.5, format: 'webm' })
  })
})
