// Responses that remember, over HTTP (issue 28): the official `openai` client chains a 20-turn tool
// loop by previous_response_id against the running gateway; the stateless fake upstream must get the
// whole history every turn, and every turn is charged its reported cost × rate × 1.3. Then the stored
// responses as OpenAI serves them (retrieve, input_items, delete), whose they are, and the retention.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import OpenAI from 'openai'
import { users } from '../auth/schema'
import { write } from '../db/tx'
import { openTestDatabase } from '../test-support/database'
import { expectedCharge, startGateway } from '../test-support/gateway'
import { generationIdOf, LOOP_PROMPT, toolOutput, WEATHER } from '../test-support/tool-loop'
import { responsesStore } from './responses-store'
import { storedResponses } from './schema'
import { EMPTY_CONTEXT, plan, purgeExpiredResponses, storedResponsesService } from './stored-responses'

type Json = Record<string, any>

let gw: Awaited<ReturnType<typeof startGateway>>
let customer: Awaited<ReturnType<typeof gw.customer>>
let sdk: OpenAI

beforeAll(async () => {
  gw = await startGateway()
  customer = await gw.customer()
  sdk = new OpenAI({ apiKey: customer.key, baseURL: `${gw.url}/v1`, maxRetries: 0 })
})
afterAll(() => gw.stop())

const generationOf = (responseId: string) => gw.upstream.generations.get(generationIdOf(responseId))!

/** The usage row of a response: what its turn cost. */
async function chargeOf(responseId: string) {
  const [row] = await gw.read<{ cost_micros: number; status: string }>('select cost_micros, status from usage_logs where upstream_id = ?', generationIdOf(responseId))
  return row!
}

const lastUpstreamBody = () => gw.upstream.log.filter((r) => r.path.endsWith('/responses')).at(-1)!.body as Json

describe('previous_response_id over HTTP', () => {
  const ids: string[] = []

  test('a 20-turn tool loop: only the new items are sent, the router gets the whole chain, each turn charged its reported cost', async () => {
    const before = await gw.books(customer.user.id)
    let previous: string | undefined
    let input: OpenAI.Responses.ResponseInput | string = LOOP_PROMPT(19)
    let charged = 0
    for (let turn = 1; turn <= 20; turn++) {
      const body = { model: 'openai/gpt-4o-mini', input, tools: [WEATHER], previous_response_id: previous, max_output_tokens: 200 }
      // Odd turns streamed, even ones plain: both store the chain before the client sees the end.
      let response: OpenAI.Responses.Response
      if (turn % 2) {
        const stream = await sdk.responses.create({ ...body, stream: true })
        let done: OpenAI.Responses.Response | undefined
        for await (const event of stream) if (event.type === 'response.completed') done = event.response
        response = done!
      } else response = await sdk.responses.create(body)
      expect(response.previous_response_id ?? undefined).toBe(previous)
      // The stateless upstream got the whole history: the prompt, then a call and its output per earlier turn.
      const sent = lastUpstreamBody()
      expect(sent.previous_response_id).toBeUndefined()
      expect(sent.store).toBeUndefined()
      expect(turn === 1 ? 1 : sent.input.length).toBe(2 * turn - 1)
      const row = await chargeOf(response.id)
      expect(row.status).toBe('success')
      expect(row.cost_micros).toBe(expectedCharge(generationOf(response.id).total_cost))
      expect((response.usage as Json).cost).toBe(row.cost_micros / 1e6)
      charged += row.cost_micros
      ids.push(response.id)
      previous = response.id
      const item = response.output[0]!
      if (turn < 20) {
        expect(item.type).toBe('function_call')
        const call = item as OpenAI.Responses.ResponseFunctionToolCall
        input = [{ type: 'function_call_output', call_id: call.call_id, output: toolOutput(turn) }]
      } else {
        expect(item.type).toBe('message')
        expect(response.output_text).toContain('+19 °C')
      }
    }
    // The prompt grows with the chain (the hold's basis with it): every turn read everything before it.
    const prompts = ids.map((id) => generationOf(id).tokens_prompt)
    for (let i = 1; i < prompts.length; i++) expect(prompts[i]!).toBeGreaterThan(prompts[i - 1]!)
    const after = await gw.books(customer.user.id)
    expect(before.balance - after.balance).toBe(charged)
    expect(after.ledgerSum).toBe(after.balance)
    expect(after.held).toBe(0)
  })

  test('retrieve and input_items answer as OpenAI: the Response, and every item it was made from, paged', async () => {
    const last = await sdk.responses.retrieve(ids[19]!)
    expect(last).toMatchObject({ id: ids[19], object: 'response', status: 'completed', previous_response_id: ids[18] })
    expect(last.output_text).toContain('+19 °C')
    const items: Json[] = []
    for await (const item of sdk.responses.inputItems.list(ids[19]!, { limit: 7, order: 'asc' })) items.push(item)
    // The prompt, then 19 pairs of call and output.
    expect(items).toHaveLength(39)
    expect(items[0]).toMatchObject({ type: 'message', role: 'user', content: [{ type: 'input_text', text: LOOP_PROMPT(19) }] })
    expect(items[1]).toMatchObject({ type: 'function_call', name: 'get_weather' })
    expect(items[38]).toMatchObject({ type: 'function_call_output', output: '{"t":"+19 °C"}' })
    expect(new Set(items.map((i) => i.id)).size).toBe(39)
    const newest = await sdk.responses.inputItems.list(ids[19]!)
    expect(newest.data[0]!.id).toBe(items[38]!.id) // desc by default
    const bad = await fetch(`${gw.url}/v1/responses/${ids[19]}/input_items?after=nope`, { headers: { authorization: `Bearer ${customer.key}` } })
    expect(bad.status).toBe(400)
  })

  test('another account sees none of it: 404 previous_response_not_found, and retrieve/delete 404', async () => {
    const other = await gw.customer()
    const theirs = new OpenAI({ apiKey: other.key, baseURL: `${gw.url}/v1`, maxRetries: 0 })
    const chained = await theirs.responses.create({ model: 'openai/gpt-4o-mini', input: 'и что дальше?', previous_response_id: ids[19] }).catch((e) => e)
    expect(chained).toBeInstanceOf(OpenAI.NotFoundError)
    expect(chained.code).toBe('previous_response_not_found')
    expect(chained.param).toBe('previous_response_id')
    expect(await theirs.responses.retrieve(ids[19]!).catch((e) => e.status)).toBe(404)
    expect(await theirs.responses.delete(ids[19]!).catch((e) => e.status)).toBe(404)
    const unknown = await sdk.responses.create({ model: 'openai/gpt-4o-mini', input: 'x', previous_response_id: 'resp_unknown' }).catch((e) => e)
    expect([unknown.status, unknown.code]).toEqual([404, 'previous_response_not_found'])
    expect((await gw.books(other.user.id)).usage).toEqual([])
  })

  test('store: false keeps nothing; generate is for the WebSocket mode only', async () => {
    const r = await sdk.responses.create({ model: 'openai/gpt-4o-mini', input: 'не храни', store: false })
    expect(await sdk.responses.retrieve(r.id).catch((e) => e.status)).toBe(404)
    const chained = await sdk.responses.create({ model: 'openai/gpt-4o-mini', input: 'x', previous_response_id: r.id }).catch((e) => e)
    expect(chained.code).toBe('previous_response_not_found')
    const warm = await fetch(`${gw.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${customer.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/gpt-4o-mini', input: 'x', generate: false }),
    })
    expect(warm.status).toBe(400)
    expect(((await warm.json()) as Json).error.param).toBe('generate')
  })

  test('delete answers as OpenAI; a chain whose link is gone is cut, and says so', async () => {
    const gone = await fetch(`${gw.url}/v1/responses/${ids[10]}`, { method: 'DELETE', headers: { authorization: `Bearer ${customer.key}` } })
    expect(await gone.json()).toEqual({ id: ids[10], object: 'response', deleted: true })
    expect(await sdk.responses.retrieve(ids[10]!).catch((e) => e.status)).toBe(404)
    expect(await sdk.responses.delete(ids[10]!).catch((e) => e.status)).toBe(404)
    const cut = await sdk.responses.create({ model: 'openai/gpt-4o-mini', input: 'дальше', previous_response_id: ids[19] }).catch((e) => e)
    expect([cut.status, cut.code]).toEqual([404, 'previous_response_not_found'])
    expect(cut.message).toContain('удалено или истекло')
    // The responses before the deleted one still chain.
    const tenth = await sdk.responses.retrieve(ids[9]!)
    const call = tenth.output[0] as OpenAI.Responses.ResponseFunctionToolCall
    const earlier = await sdk.responses.create({
      model: 'openai/gpt-4o-mini',
      input: [
        { type: 'function_call_output', call_id: call.call_id, output: toolOutput(10) },
        { role: 'user', content: 'А теперь итог' },
      ],
      previous_response_id: ids[9],
    })
    // The prompt, 9 calls with their outputs, the tenth call, and the two new items.
    expect(lastUpstreamBody().input).toHaveLength(1 + 2 * 9 + 1 + 2)
    expect(earlier.previous_response_id).toBe(ids[9])
  })
})

describe('the store itself', () => {
  test('the retention job deletes what expired (one instance at a time); a chain in use renews its ancestors', async () => {
    const { db, close } = await openTestDatabase()
    try {
      await write(db, (q) => q.insert(users).values({ id: 'u', email: 'a@b.ru', emailNormalized: 'a@b.ru', passwordHash: 'x', createdAt: new Date(0), updatedAt: new Date(0) }))
      const day = 86_400_000
      const now = Date.now()
      const row = (id: string, parentId: string | null, depth: number, expiresAt: number) => ({
        id,
        userId: 'u',
        teamId: null,
        parentId,
        model: 'm',
        status: 'completed',
        input: [{ role: 'user', content: id }],
        output: [],
        usage: null,
        response: {},
        bytes: 10,
        chainBytes: 10 * (depth + 1),
        depth,
        createdAt: new Date(expiresAt - 30 * day),
        expiresAt: new Date(expiresAt),
      })
      await write(db, (q) => q.insert(storedResponses).values([row('old', null, 0, now - 1000), row('a', null, 0, now + 2 * day), row('b', 'a', 1, now + 3 * day)]))
      expect(await purgeExpiredResponses(db, new Date(now))).toBe(1)
      const owner = { userId: 'u', teamId: null, all: false }
      const service = storedResponsesService(db, () => Promise.reject(new Error('not called')))
      const ctx = await service.load(
        { userId: 'u', teamId: null, team: null, apiKey: null, availableMicros: 0, residency: 'any' as const, modelRules: [], fitToBalance: false },
        'b',
      )
      expect(ctx.items).toEqual([
        { role: 'user', content: 'a' },
        { role: 'user', content: 'b' },
      ])
      // Continuing a chain whose last stored response is days old renews every stored ancestor.
      const p = plan({ input: 'c', model: 'm' }, ctx)
      await service.remember({ userId: 'u', teamId: null, team: null, apiKey: null, availableMicros: 0, residency: 'any' as const, modelRules: [], fitToBalance: false }, ctx, p, {
        id: 'c',
        model: 'm',
        status: 'completed',
        output: [],
      })
      const store = responsesStore(db)
      for (const id of ['a', 'b', 'c']) expect((await store.get(id, owner, new Date()))!.expiresAt.getTime()).toBeGreaterThan(now + 29 * day)
      expect((await store.get('c', owner, new Date()))!.depth).toBe(2)
      // A continuation of nothing stored holds its whole history itself.
      const memory = { ...EMPTY_CONTEXT, items: [{ role: 'user', content: 'x' }], bytes: 30 }
      await service.remember(
        { userId: 'u', teamId: null, team: null, apiKey: null, availableMicros: 0, residency: 'any' as const, modelRules: [], fitToBalance: false },
        memory,
        plan({ input: 'y', model: 'm' }, memory),
        {
          id: 'd',
          model: 'm',
          output: [],
        },
      )
      expect(await store.get('d', owner, new Date())).toMatchObject({
        parentId: null,
        depth: 0,
        input: [
          { role: 'user', content: 'x' },
          { type: 'message', role: 'user', content: 'y' },
        ],
      })
    } finally {
      await close()
    }
  })
})
