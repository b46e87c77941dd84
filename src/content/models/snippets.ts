// Ready-to-copy requests for one model, by what it does: chat models /v1/chat/completions, image
// models /v1/images, embedding models /v1/embeddings, speech models /v1/audio/speech, transcription
// models /v1/audio/transcriptions (curl and the official OpenAI JS SDK). Pure: the public model
// page shows them, the server sends the same text to crawlers.
import { isEmbeddingModel, isSpeechModel, isTranscriptionModel, type Model } from './catalog'

export interface Snippet {
  id: 'curl' | 'js'
  title: string
  lang: 'bash' | 'javascript'
  code: string
}

/**
 * A JSON body inside a single-quoted shell argument, one field a line: a quote in a model id
 * cannot end the argument.
 */
const shellJson = (value: object) =>
  `{\n${Object.entries(value)
    .map(([key, v]) => `  ${JSON.stringify(key)}: ${JSON.stringify(v).replace(/","/g, '", "').replace(/":"/g, '": "').replace(/},\{/g, '}, {')}`)
    .join(',\n')}\n}`.replace(/'/g, `'\\''`)
const indent = (text: string, by: string) => text.split('\n').join(`\n${by}`)
/** A model id as one shell word: quoted when it holds anything but the usual id characters. */
const shellWord = (value: string) => (/^[\w./:-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`)

export function modelSnippets(model: Pick<Model, 'id' | 'capabilities'>, origin: string): Snippet[] {
  const api = `${origin.replace(/\/+$/, '')}/v1`
  const id = JSON.stringify(model.id)
  const client = `import OpenAI from 'openai'

const client = new OpenAI({
  baseURL: '${api}',
  apiKey: process.env.AI_GATEWAY_API_KEY,
})
`
  const curl = (endpoint: string, body: object) =>
    `curl ${api}/${endpoint} \\
  -H "Authorization: Bearer $AI_GATEWAY_API_KEY" \\
  -H "Content-Type: application/json" \\
  -d '${indent(shellJson(body), '  ')}'`

  if (isSpeechModel(model)) {
    const input = 'Здравствуйте! Ваш заказ передан в доставку.'
    return [
      {
        id: 'curl',
        title: 'curl',
        lang: 'bash',
        code: `${curl('audio/speech', { model: model.id, input, voice: 'alloy', response_format: 'mp3' })} \\
  --output speech.mp3`,
      },
      {
        id: 'js',
        title: 'JavaScript (openai)',
        lang: 'javascript',
        code: `import { writeFile } from 'node:fs/promises'
${client}
const speech = await client.audio.speech.create({
  model: ${id},
  input: '${input}',
  voice: 'alloy',
  response_format: 'mp3',
})

await writeFile('speech.mp3', Buffer.from(await speech.arrayBuffer()))`,
      },
    ]
  }
  if (isTranscriptionModel(model)) {
    return [
      {
        id: 'curl',
        title: 'curl',
        lang: 'bash',
        code: `curl ${api}/audio/transcriptions \\
  -H "Authorization: Bearer $AI_GATEWAY_API_KEY" \\
  -F file=@voice.ogg \\
  -F model=${shellWord(model.id)} \\
  -F language=ru`,
      },
      {
        id: 'js',
        title: 'JavaScript (openai)',
        lang: 'javascript',
        code: `import { createReadStream } from 'node:fs'
${client}
const transcript = await client.audio.transcriptions.create({
  model: ${id},
  file: createReadStream('voice.ogg'),
  language: 'ru',
})

console.log(transcript.text)`,
      },
    ]
  }
  if (isEmbeddingModel(model as Model)) {
    const input = ['Как вернуть деньги за заказ?', 'Условия возврата товара']
    return [
      { id: 'curl', title: 'curl', lang: 'bash', code: curl('embeddings', { model: model.id, input }) },
      {
        id: 'js',
        title: 'JavaScript (openai)',
        lang: 'javascript',
        code: `${client}
const result = await client.embeddings.create({
  model: ${id},
  input: ['Как вернуть деньги за заказ?', 'Условия возврата товара'],
})

console.log(result.data[0].embedding.length)`,
      },
    ]
  }
  if (model.capabilities?.image) {
    const prompt = 'Акварельный маяк на скалистом берегу на рассвете'
    return [
      { id: 'curl', title: 'curl', lang: 'bash', code: curl('images', { model: model.id, prompt, size: '1024x1024', n: 1 }) },
      {
        id: 'js',
        title: 'JavaScript (openai)',
        lang: 'javascript',
        code: `${client}
const image = await client.images.generate({
  model: ${id},
  prompt: '${prompt}',
  size: '1024x1024',
  n: 1,
})

console.log(image.data[0].url)`,
      },
    ]
  }
  const content = 'Привет! Что ты умеешь?'
  return [
    {
      id: 'curl',
      title: 'curl',
      lang: 'bash',
      code: curl('chat/completions', { model: model.id, messages: [{ role: 'user', content }] }),
    },
    {
      id: 'js',
      title: 'JavaScript (openai)',
      lang: 'javascript',
      code: `${client}
const completion = await client.chat.completions.create({
  model: ${id},
  messages: [{ role: 'user', content: '${content}' }],
})

console.log(completion.choices[0].message.content)`,
    },
  ]
}
