import { expect, test } from 'bun:test'
import { postMeta, withBrand } from '../../src/content/seo'

test('the brand ends a title once, whatever suffix the title came with', () => {
  expect(withBrand('Вход')).toBe('Вход — AI Gateway')
  expect(withBrand('GPT-4o — обзор модели | AI Gateway')).toBe('GPT-4o — обзор модели — AI Gateway')
  expect(withBrand('Блог — AI Gateway')).toBe('Блог — AI Gateway')
  const meta = postMeta(
    {
      slug: 's',
      title: 'T',
      description: 'd',
      metaTitle: 'FLUX.2 — обзор модели | AI Gateway',
      metaDescription: '',
      keywords: [],
      coverImage: null,
      modelName: 'm',
      publishedAt: null,
    },
    'http://x',
  )
  expect(meta.title).toBe('FLUX.2 — обзор модели — AI Gateway')
})
