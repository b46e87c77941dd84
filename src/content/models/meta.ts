// Metadata of the public catalogue pages: /models (an ItemList of every model) and /models/{id}
// (a Product with its ruble Offer). Shared by the server (src/spa) and the browser.

import { absoluteUrl, type PageMeta, STATIC_PAGES, webPageLd } from '../seo'
import { BRAND } from '../terms'
import { contextText, isFreeModel, type Model, priceLines, priceLineText, providerLabel, providerOf, publicModelHref } from './catalog'

export const modelTitle = (model: Pick<Model, 'id' | 'name'>) => `${model.name || model.id} — цены в рублях | ${BRAND}`

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length <= max ? flat : `${flat.slice(0, max - 1).replace(/\s+\S*$/, '')}…`
}

export function modelDescription(model: Model): string {
  const prices = priceLines(model).map(priceLineText).join('; ')
  const context = contextText(model.context_length)
  const head = `${model.name || model.id} (${providerLabel(providerOf(model.id))}) через OpenAI-совместимый API с оплатой в рублях. ${prices}.${context ? ` ${context}.` : ''}`
  return model.description ? clip(`${head} ${model.description}`, 300) : head
}

/** The lowest ruble amount the model is sold at, for the Offer (free models 0). */
function offerPrice(model: Model): { price: string; unit: string } | null {
  if (isFreeModel(model.pricing)) return { price: '0', unit: 'бесплатно' }
  const line = priceLines(model).find((l) => l.price.kind === 'amount')
  if (line?.price.kind !== 'amount') return null
  return { price: String(Number((line.price.rubles * line.scale).toPrecision(6))), unit: line.unit ?? line.label }
}

export function modelMeta(model: Model, origin: string): PageMeta {
  const path = publicModelHref(model.id)
  const title = modelTitle(model)
  const description = modelDescription(model)
  const offer = offerPrice(model)
  return {
    title,
    description,
    keywords: [model.name, model.id, `${model.name} API`, `${model.name} цена в рублях`].filter(Boolean),
    path,
    jsonLd: [
      {
        '@context': 'https://schema.org',
        '@type': 'Product',
        name: model.name || model.id,
        sku: model.id,
        description: model.description || description,
        brand: { '@type': 'Brand', name: providerLabel(providerOf(model.id)) },
        category: 'AI-модель',
        url: absoluteUrl(origin, path),
        ...(offer
          ? {
              offers: {
                '@type': 'Offer',
                price: offer.price,
                priceCurrency: 'RUB',
                description: offer.unit,
                availability: 'https://schema.org/InStock',
                url: absoluteUrl(origin, path),
                seller: { '@type': 'Organization', name: BRAND, url: `${origin}/` },
              },
            }
          : {}),
      },
      {
        '@context': 'https://schema.org',
        '@type': 'BreadcrumbList',
        itemListElement: [
          { '@type': 'ListItem', position: 1, name: BRAND, item: `${origin}/` },
          { '@type': 'ListItem', position: 2, name: 'Модели', item: absoluteUrl(origin, '/models') },
          { '@type': 'ListItem', position: 3, name: model.name || model.id, item: absoluteUrl(origin, path) },
        ],
      },
    ],
  }
}

export function modelsMeta(models: readonly Pick<Model, 'id' | 'name'>[], origin: string): PageMeta {
  const page = STATIC_PAGES['/models']!
  const meta: PageMeta = { title: page.title, description: page.description, keywords: page.keywords, path: '/models' }
  return {
    ...meta,
    jsonLd: [
      webPageLd(origin, 'CollectionPage', meta),
      {
        '@context': 'https://schema.org',
        '@type': 'ItemList',
        name: 'AI-модели',
        numberOfItems: models.length,
        itemListElement: models.map((m, i) => ({
          '@type': 'ListItem',
          position: i + 1,
          name: m.name || m.id,
          url: absoluteUrl(origin, publicModelHref(m.id)),
        })),
      },
    ],
  }
}

export const NOT_FOUND_MODEL_META = (path: string): PageMeta => ({
  title: `Модель не найдена | ${BRAND}`,
  description: 'Такой модели нет в каталоге или она больше не доступна.',
  path,
  noindex: true,
})
