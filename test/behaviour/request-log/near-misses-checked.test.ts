// Bug: `GET /_dockside/requests?nearMisses=51` (or `=abc`) answered 200 when no pattern was given: the value was only
// checked when near misses were computed, so a typo went unnoticed. Bad input is a 400 naming the field
// (docs/admin-api.md#requests: nearMisses, how many, default 3; the limit is 50), with a pattern or without.
import { afterEach, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../src/index'

let fake: Dockside | undefined
afterEach(async () => {
  await fake?.close()
  fake = undefined
})

const get = async (f: Dockside, url: string) => {
  const res = await f.protocol.handle({ method: 'GET', url, headers: { host: '127.0.0.1' }, signal: new AbortController().signal, body: async () => '' })
  return { status: res.status, json: JSON.parse(res.body as string) }
}

it('nearMisses out of range or not a number is a 400 with or without a pattern', async () => {
  fake = createDockside()
  for (const url of ['/_dockside/requests?nearMisses=51', '/_dockside/requests?method=GET&nearMisses=51']) {
    expect(await get(fake, url), url).toEqual({ status: 400, json: { message: 'nearMisses: must be an integer from 0 to 50, not "51"' } })
  }
  expect(await get(fake, '/_dockside/requests?nearMisses=abc')).toEqual({ status: 400, json: { message: 'nearMisses: must be an integer from 0 to 50, not "abc"' } })
  expect(await get(fake, '/_dockside/requests?nearMisses=50')).toEqual({ status: 200, json: { count: 0, omitted: 0, requests: [] } })
})
