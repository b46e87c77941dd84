import { describe, expect, test } from 'bun:test'
import type { ModelRow } from '../catalog/schema'
import { articleJson } from '../upstream/demo/article'
import { ArticleParseError, articleMessages, clip, modelKind, parseArticle, slugify, uniqueSlug } from './article'

describe('article parsing', () => {
  const body = 'Абзац о модели. '.repeat(20)
  const full = {
    title: 'GPT-4o: обзор',
    description: 'Кратко.',
    content: `# GPT-4o: обзор\n\n${body}`,
    metaTitle: 'GPT-4o',
    metaDescription: 'Мета',
    keywords: ['GPT-4o', '#OpenAI', 'gpt-4o', ''],
  }

  test('plain, fenced and chatty answers give the same article; a repeated H1 and duplicate keywords are dropped', () => {
    const plain = parseArticle(JSON.stringify(full))
    expect(plain.content.startsWith('Абзац')).toBe(true)
    expect(plain.keywords).toEqual(['GPT-4o', 'OpenAI'])
    expect(parseArticle(`\`\`\`json\n${JSON.stringify(full)}\n\`\`\``)).toEqual(plain)
    expect(parseArticle(`Вот статья:\n${JSON.stringify(full)}\nНадеюсь, пригодится!`)).toEqual(plain)
  })

  test('missing optional fields are derived; snake_case and comma keywords are understood', () => {
    const a = parseArticle(JSON.stringify({ title: 'Заголовок', content: body, meta_title: 'Мета-заголовок', keywords: 'один, два;три' }))
    expect(a.description).toBe(clip(body, 300))
    expect(a.metaTitle).toBe('Мета-заголовок')
    expect(a.metaDescription).toBe(clip(a.description, 170))
    expect(a.keywords).toEqual(['один', 'два', 'три'])
  })

  test.each([['not json at all'], [JSON.stringify({ title: '', content: body })], [JSON.stringify({ title: 'Есть заголовок', content: 'коротко' })], ['[1, 2, 3]']])(
    'an unusable answer is refused: %s',
    (text) => {
      expect(() => parseArticle(text)).toThrow(ArticleParseError)
    },
  )

  test('slugs transliterate Cyrillic, keep Latin and digits, and get a suffix on collision', () => {
    expect(slugify('GPT-4o: возможности модели и цены')).toBe('gpt-4o-vozmozhnosti-modeli-i-tseny')
    expect(slugify('Щука, ёж и Юла — «съешь»!')).toBe('shchuka-ezh-i-yula-sesh')
    expect(slugify('???')).toBe('statya')
    expect(slugify('слово '.repeat(40)).length).toBeLessThanOrEqual(80)
    const taken = new Set(['a', 'a-2'])
    expect(uniqueSlug('a', (s) => taken.has(s))).toBe('a-3')
    expect(uniqueSlug('b', (s) => taken.has(s))).toBe('b')
  })
})

describe('the article request and the demo article', () => {
  const row = (id: string, output: string[], pricing: Partial<Record<'promptUsd' | 'completionUsd' | 'imageUsd' | 'imageOutputUsd', string>> = {}) =>
    ({
      id,
      name: id,
      description: '',
      contextLength: 8192,
      inputModalities: ['text'],
      outputModalities: output,
      promptUsd: '0',
      completionUsd: '0',
      imageUsd: '0',
      imageOutputUsd: '0',
      ...pricing,
    }) as unknown as ModelRow

  test('names the model type and the ruble price; tells the writer to keep dollars and operator settings out', () => {
    const [system, user] = articleMessages(row('black-forest-labs/flux.2-pro', ['image']), 'https://gw.example/v1', '3,61 ₽ за изображение')
    expect(user!.content).toContain('Тип: генерация изображений')
    expect(user!.content).toContain('Цена в AI Gateway: 3,61 ₽ за изображение')
    expect(system!.content).toContain('только в рублях')
    expect(system!.content).toContain('переменные окружения')
    expect(system!.content).toContain('/v1/images')
    expect(modelKind(row('openai/text-embedding-3-small', ['embeddings']))).toBe('embeddings')
    expect(modelKind(row('google/gemini-2.5-flash-image', ['image', 'text']))).toBe('chat')
  })

  test('the demo writes rubles only, no operator settings, and an example that fits the model', () => {
    const write = (id: string, price?: string) =>
      JSON.parse(articleJson([`ID модели: ${id}`, price && `Цена в AI Gateway: ${price}`, 'Адрес API: https://gw.example/v1'].filter(Boolean).join('\n'))).content as string
    const flux = write('black-forest-labs/flux.2-pro', '3,61 ₽ за изображение')
    expect(flux).toContain('3,61 ₽ за изображение')
    expect(flux).toContain('https://gw.example/v1/images')
    expect(flux).not.toContain('chat/completions')
    const embed = write('openai/text-embedding-3-small')
    expect(embed).toContain('https://gw.example/v1/embeddings')
    expect(embed).toContain('в каталоге моделей')
    const chat = write('openai/gpt-4o', '1,2 ₽ за 1 млн входных и 4 ₽ за 1 млн выходных токенов')
    expect(chat).toContain('https://gw.example/v1/chat/completions')
    for (const text of [flux, embed, chat]) {
      expect(text).not.toContain('$')
      expect(text).not.toContain('OPENROUTER')
    }
  })
})
