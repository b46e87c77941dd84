// The blog's article request, answered locally: with no OPENROUTER_API_KEY the autopost job still
// fills the blog with readable Russian articles built from the catalogue entry of the model.
//
// Recognised by `response_format.json_schema.name === 'blog_article'` (the structured-output format
// src/blog/article.ts asks for). The model is named in the prompt by a line `ID модели: <id>`;
// `Название:` and `Описание:` lines are the fallback for a model this catalogue does not know, and
// `Адрес API:` gives the base URL for the example request.
import { findModel, type Model } from './catalogue'

export const ARTICLE_FORMAT_NAME = 'blog_article'

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

export function isArticleRequest(body: Record<string, unknown>): boolean {
  const format = body.response_format
  return isObject(format) && isObject(format.json_schema) && format.json_schema.name === ARTICLE_FORMAT_NAME
}

const line = (text: string, label: string) => new RegExp(`^${label}:\\s*(.+)$`, 'mu').exec(text)?.[1]?.trim()

/** 'OpenAI: GPT-4o' → 'GPT-4o' (the router prefixes names with the provider). */
const shortName = (name: string) => name.replace(/^[^:]{1,40}:\s*/, '')

/** The ruble price the prompt gives (what customers pay); never the provider's dollars. */
function priceSentence(text: string): string {
  const tail = 'Стоимость запроса видна заранее, а с баланса списывается только фактическая.'
  const rub = line(text, 'Цена в AI Gateway')
  return rub ? `В AI Gateway: ${rub}. ${tail}` : `Актуальная цена в рублях — в каталоге моделей. ${tail}`
}

/** A first request that fits the model: a picture, vectors or a chat message. */
function exampleRequest(apiBase: string, id: string, kind: 'chat' | 'image' | 'embeddings'): string[] {
  const head = [
    '```bash',
    `curl ${apiBase}/${kind === 'image' ? 'images' : kind === 'embeddings' ? 'embeddings' : 'chat/completions'} \\`,
    '  -H "Authorization: Bearer sk-gw-…" \\',
    '  -H "Content-Type: application/json" \\',
  ]
  const body =
    kind === 'image'
      ? `{"model": "${id}", "prompt": "Маяк на скалистом берегу на закате", "n": 1}`
      : kind === 'embeddings'
        ? `{"model": "${id}", "input": ["Как пополнить баланс?", "Оплата картой российского банка"]}`
        : `{"model": "${id}", "messages": [{"role": "user", "content": "Привет!"}]}`
  return [...head, `  -d '${body}'`, '```']
}

function facts(model: Model | undefined, text: string) {
  const id = model?.id ?? line(text, 'ID модели') ?? 'demo/model'
  const name = model?.name ?? line(text, 'Название') ?? id
  // The demo catalogue labels its descriptions; the article is labelled once, at its end.
  const description = (model?.description ?? line(text, 'Описание') ?? '').replace(/^Демо-модель:\s*/, '').trim()
  const outputs = model?.architecture.output_modalities ?? ['text']
  const inputs = model?.architecture.input_modalities ?? ['text']
  return { id, name, short: shortName(name), provider: id.split('/')[0] ?? id, description, outputs, inputs, model }
}

/** The article as the JSON object the blog asked for. */
export function articleJson(userText: string): string {
  const f = facts(findModel(line(userText, 'ID модели') ?? ''), userText)
  const draws = f.outputs.includes('image')
  const embeds = f.outputs.includes('embeddings')
  const kind = embeds ? 'embeddings' : draws && !f.outputs.includes('text') ? 'image' : 'chat'
  const sees = f.inputs.includes('image')
  const context = f.model?.context_length
  const abilities = [
    f.outputs.includes('text') && 'генерирует и редактирует тексты, отвечает на вопросы и пишет код',
    embeds && 'превращает тексты в векторы для поиска по смыслу, RAG и кластеризации',
    draws && 'рисует изображения по текстовому описанию',
    sees && 'понимает изображения, которые вы прикладываете к сообщению',
    context && `держит в контексте до ${context.toLocaleString('ru-RU')} токенов`,
  ].filter(Boolean) as string[]
  const prices = priceSentence(userText)
  const content = [
    `${f.short} — модель от ${f.provider}, доступная в AI Gateway через единый OpenAI-совместимый API с оплатой в рублях.`,
    '',
    '## Что это за модель',
    '',
    f.description ? `${f.description[0]!.toUpperCase()}${f.description.slice(1)}` : `${f.name} — одна из моделей каталога AI Gateway.`,
    '',
    '## Возможности',
    '',
    ...abilities.map((a) => `- ${a[0]!.toUpperCase()}${a.slice(1)}.`),
    '',
    '## Сколько стоит',
    '',
    prices,
    '',
    '## Как попробовать',
    '',
    kind === 'embeddings'
      ? `Отправьте запрос из своего кода с API-ключом — ${f.short} вернёт по вектору на каждый текст:`
      : `Откройте Playground и выберите ${f.short} — или отправьте запрос из своего кода с API-ключом:`,
    '',
    ...exampleRequest(line(userText, 'Адрес API') ?? 'http://localhost:3000/v1', f.id, kind),
    '',
    '## Кому подойдёт',
    '',
    `- Разработчикам, которым нужна ${kind === 'image' ? 'генерация изображений' : kind === 'embeddings' ? 'семантический поиск' : 'языковая модель'} в своём продукте без зарубежной карты.`,
    '- Исследователям и студентам, которые сравнивают модели на своих задачах.',
    '- Командам, которым важно видеть расходы по каждому ключу и запросу.',
    '',
    '_Эта статья написана демо-режимом AI Gateway по данным каталога._',
  ].join('\n')
  const article = {
    title: `${f.short}: возможности модели и как начать работу через API`,
    description: `Разбираем ${f.short} от ${f.provider}: что умеет модель, сколько стоит и как отправить первый запрос через AI Gateway.`,
    content,
    metaTitle: `${f.short} — обзор модели | AI Gateway`,
    metaDescription: `${f.short}: возможности, цены в рублях и пример запроса к API. Попробуйте модель в AI Gateway.`,
    keywords: [f.short, f.provider, 'нейросеть', 'API', kind === 'image' ? 'генерация изображений' : kind === 'embeddings' ? 'эмбеддинги' : 'языковая модель', 'AI Gateway'],
  }
  return JSON.stringify(article)
}
