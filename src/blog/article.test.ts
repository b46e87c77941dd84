import { describe, expect, test } from 'bun:test'
import { ArticleParseError, clip, parseArticle, slugify, uniqueSlug } from './article'

describe('article parsing', () => {
  const body = 'Абзац о модели. '.repeat(20)
  const full = { title: 'GPT-4o: обзор', description: 'Кратко.', content: `# GPT-4o: обзор\n\n${body}`, metaTitle: 'GPT-4o', metaDescription: 'Мета', keywords: ['GPT-4o', '#OpenAI', 'gpt-4o', ''] }

  test('plain, fenced and chatty answers give the same article; a repeated H1 and duplicate keywords are dropped', () => {
    const plain = parseArticle(JSON.stringify(full))
    expect(plain.content.startsWith('Абзац')).toBe(true)
    expect(plain.keywords).toEqual(['GPT-4o', 'OpenAI'])
    expect(parseArticle('```json\n' + JSON.stringify(full) + '\n```')).toEqual(plain)
    expect(parseArticle(`Вот статья:\n${JSON.stringify(full)}\nНадеюсь, пригодится!`)).toEqual(plain)
  })

  test('missing optional fields are derived; snake_case and comma keywords are understood', () => {
    const a = parseArticle(JSON.stringify({ title: 'Заголовок', content: body, meta_title: 'Мета-заголовок', keywords: 'один, два;три' }))
    expect(a.description).toBe(clip(body, 300))
    expect(a.metaTitle).toBe('Мета-заголовок')
    expect(a.metaDescription).toBe(clip(a.description, 170))
    expect(a.keywords).toEqual(['один', 'два', 'три'])
  })

  test.each([
    ['not json at all'],
    [JSON.stringify({ title: '', content: body })],
    [JSON.stringify({ title: 'Есть заголовок', content: 'коротко' })],
    ['[1, 2, 3]'],
  ])('an unusable answer is refused: %s', (text) => {
    expect(() => parseArticle(text)).toThrow(ArticleParseError)
  })

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
