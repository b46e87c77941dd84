import { describe, expect, test } from 'bun:test'
import { contextText, MODEL_TYPES, matchesPublicFilter, modelType, priceLines, priceLineText, providerLabel } from './catalog'
import { modelSnippets } from './snippets'

describe('providerLabel', () => {
  test('known providers by their own spelling', () => {
    expect(providerLabel('black-forest-labs')).toBe('Black Forest Labs')
    expect(providerLabel('openai')).toBe('OpenAI')
    expect(providerLabel('x-ai')).toBe('xAI')
  })

  test('unknown ones as title-cased words of the slug', () => {
    expect(providerLabel('some-new-lab')).toBe('Some New Lab')
    expect(providerLabel('acme-ai')).toBe('Acme AI')
    expect(providerLabel('solo')).toBe('Solo')
  })
})

describe('contextText', () => {
  test('thousands in K, from a million in M with ru-RU decimals', () => {
    expect(contextText(128_000)).toBe('128K контекст')
    expect(contextText(2_000_000)).toBe('2M контекст')
    expect(contextText(1_048_576)).toBe('1,05M контекст')
    expect(contextText(999_999)).toBe('1M контекст')
    expect(contextText(500)).toBe('500 токенов контекст')
    expect(contextText(0)).toBeNull()
  })
})

describe('voice models', () => {
  const base = { image: '0', request: '0', completion: '0' }
  const speech = { capabilities: { speech: true }, pricing: { ...base, prompt: '0.00195', character: '0.00195', audio_second: '0' } } as never
  const perSecond = { capabilities: { transcription: true }, pricing: { ...base, prompt: '0.013', character: '0', audio_second: '0.013' } } as never
  const perToken = {
    capabilities: { transcription: true },
    pricing: { ...base, prompt: '0.0003', completion: '0.0012', audio: '0.00078', character: '0', audio_second: '0' },
  } as never

  test('have their own types', () => {
    expect(modelType(speech)).toBe('speech')
    expect(modelType(perSecond)).toBe('transcription')
    expect(MODEL_TYPES.map((t) => t.label)).toContain('Озвучка')
    expect(MODEL_TYPES.map((t) => t.label)).toContain('Распознавание речи')
  })

  test('are priced per 1M characters and per minute of audio (or per audio token)', () => {
    const plain = (lines: ReturnType<typeof priceLines>) => lines.map((l) => priceLineText(l).replace(/\s/g, ' '))
    expect(plain(priceLines(speech))).toEqual(['Текст: 1 950,00 ₽ за 1M символов'])
    expect(plain(priceLines(perSecond))).toEqual(['Аудио: 0,7800 ₽ за минуту'])
    expect(priceLines(perToken).map((l) => `${l.label} ${l.unit}`)).toEqual(['Аудио за 1M токенов', 'Текст за 1M токенов'])
  })

  test('the public filters find them', () => {
    expect(matchesPublicFilter(speech, 'speech')).toBe(true)
    expect(matchesPublicFilter(perSecond, 'speech')).toBe(false)
    expect(matchesPublicFilter(perSecond, 'transcription')).toBe(true)
    expect(matchesPublicFilter(speech, 'text')).toBe(false)
  })

  test('model pages show the SDK calls', () => {
    expect(
      modelSnippets({ id: 'a/tts', capabilities: { speech: true } } as never, 'https://x.ru')
        .map((s) => s.code)
        .join('\n'),
    ).toContain('client.audio.speech.create')
    const stt = modelSnippets({ id: 'a/stt', capabilities: { transcription: true } } as never, 'https://x.ru')
    expect(stt.map((s) => s.code).join('\n')).toContain('client.audio.transcriptions.create')
    expect(stt[0]!.code).toContain('-F file=@voice.ogg')
  })
})
