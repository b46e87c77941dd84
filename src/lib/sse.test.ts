import { expect, test } from 'bun:test'
import { dataOf, eventsOf, SseSplitter } from './sse'

test('splits events across arbitrary chunk boundaries, CRLF included', () => {
  const s = new SseSplitter()
  const enc = new TextEncoder()
  expect(eventsOf(s.pushBlock(enc.encode(': OPENROUTER PROCESSING\n\nda')))).toEqual([': OPENROUTER PROCESSING'])
  expect(eventsOf(s.pushBlock(enc.encode('ta: {"a":1}\r\n\r\ndata: [DONE]\n')))).toEqual(['data: {"a":1}'])
  expect(eventsOf(s.pushBlock(enc.encode('\n')))).toEqual(['data: [DONE]'])
  expect(s.rest()).toBe('')
})

test('multi-byte characters split between chunks survive', () => {
  const s = new SseSplitter()
  const bytes = new TextEncoder().encode('data: {"t":"Привет"}\n\n')
  expect(eventsOf(s.pushBlock(bytes.slice(0, 18)))).toEqual([])
  expect(eventsOf(s.pushBlock(bytes.slice(18)))).toEqual(['data: {"t":"Привет"}'])
})

test('dataOf', () => {
  expect(dataOf('data: {"x":1}')).toBe('{"x":1}')
  expect(dataOf('data: [DONE]')).toBeUndefined()
  expect(dataOf(': keep-alive')).toBeUndefined()
  expect(dataOf('event: message\ndata: {"y":2}')).toBe('{"y":2}')
})
