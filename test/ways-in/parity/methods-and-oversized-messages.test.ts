// A review of where the ways in answered differently: the real server on 127.0.0.1 (the reference: what real clients
// see), the in-process hooks and the MSW handlers, side by side.
// 1. A method Node's HTTP parser refuses. fetch upper-cases only DELETE, GET, HEAD, OPTIONS, POST and PUT, so
//    `fetch(url, { method: 'patch' })` sends `patch`: the server answered 400 `Bad request: HPE_INVALID_METHOD` (not
//    saying which method, nor what to send), fetch in process upper-cased it and answered the route's 404 (or failed
//    as an unhandled route), and the MSW handlers answered the 404 too when handed the request (a page's service
//    worker hands it over as sent). Now all three give the server's 400, which names the method and the fix.
// 2. An oversized client message (1009): the same readyState per turn and the same close event on both ways in, in
//    every phase of the event loop the client can send from (a guard: it already matched).
// Found by a review of where the ways in answered differently (was test/regressions/ways-in-parity-review.test.ts).
import { getResponse } from 'msw'
import { describe, expect, it } from 'vitest'
import { createDockside } from '../../../src/index'
import { docksideHandlers } from '../../../src/transports/msw/index'
import { streamWays } from '../../support/stream-ways'
import { transcript, type Ctx } from '../../support/ws-parity'

interface Answer {
  status: number
  headers: Record<string, string>
  body: string
}

async function answerOf(res: Response): Promise<Answer> {
  const headers: Record<string, string> = {}
  res.headers.forEach((v, k) => (headers[k] = v))
  return { status: res.status, headers, body: await res.text() }
}

const REFUSED = ['patch', 'Patch', 'm-search', 'FOO']

describe("a method node:http's parser refuses (fetch sends `patch` as written)", () => {
  it('fetch gets the same 400 from the server and in process, naming the method and what to send; the fake never sees it', async () => {
    const answers: Record<string, Answer[]> = {}
    for (const way of streamWays) {
      await using fake = createDockside({ seed: 1 })
      const w = await way.start(fake)
      try {
        const got: Answer[] = []
        for (const method of REFUSED) for (const path of ['/_ping', '/containers/json', '/images/x/push']) got.push(await answerOf(await fetch(`${w.base}${path}`, { method })))
        answers[way.name] = got
        // Refused before any route: nothing reached the fake.
        expect(fake.requests.list()).toEqual([])
      } finally {
        await w.close()
      }
    }
    expect(answers['in-process']).toEqual(answers.server)
    const [patch] = answers.server
    expect(patch.status).toBe(400)
    expect(patch.headers).toEqual({ 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(patch.body)), connection: 'close' })
    expect(JSON.parse(patch.body).message).toBe(
      'Bad request: HPE_INVALID_METHOD: "patch" is not an HTTP method the server accepts. Methods are case-sensitive, and fetch upper-cases only DELETE, GET, HEAD, OPTIONS, POST and PUT: send "PATCH". This fake serves GET, HEAD, POST and DELETE.',
    )
    expect(JSON.parse(answers.server.at(-1)!.body).message).toBe('Bad request: HPE_INVALID_METHOD: "FOO" is not an HTTP method the server accepts. This fake serves GET, HEAD, POST and DELETE.')
  })

  it("the MSW handlers give the server's answer to the request as a page's fetch sends it", async () => {
    await using fake = createDockside({ seed: 1 })
    await using server = await fake.listen({ port: 0 })
    const [http] = docksideHandlers(fake)
    for (const method of REFUSED) {
      const reference = await answerOf(await fetch(`${server.url}/_ping`, { method }))
      const res = await getResponse([http], new Request('https://us-west-1.hyper.test/_ping', { method }))
      expect(res, method).toBeDefined()
      const got = await answerOf(res!)
      expect({ status: got.status, type: got.headers['content-type'], body: got.body }).toEqual({ status: reference.status, type: reference.headers['content-type'], body: reference.body })
    }
    // A method it accepts still reaches the fake (upper-case PATCH: no such route, the server's 404).
    const patch = await getResponse([http], new Request('https://us-west-1.hyper.test/_ping', { method: 'PATCH' }))
    expect(patch!.status).toBe((await fetch(`${server.url}/_ping`, { method: 'PATCH' })).status)
  })
})

/** The event loop's phases a client's code runs in (as in test/ways-in/intercept/websocket/parity-closes-order-and-names.test.ts). */
const PHASES: Record<string, (fn: () => void) => void> = {
  poll: (fn) => fn(),
  check: (fn) => setImmediate(fn),
  timers: (fn) => setTimeout(fn, 0),
}

describe('an oversized client message (over EVENTS_MAX_MESSAGE: close 1009)', () => {
  it('readyState per turn and the close event are the same on the server and in process, in every phase and for every kind of data', async () => {
    const kinds: Record<string, () => string | Uint8Array | ArrayBuffer | Blob> = {
      text: () => 'x'.repeat(4097),
      'multi-byte text': () => 'é'.repeat(2049),
      bytes: () => new Uint8Array(4097),
      ArrayBuffer: () => new ArrayBuffer(70_000),
      Blob: () => new Blob(['y'.repeat(4097)]),
    }
    const script = async (ctx: Ctx) => {
      for (const phase of Object.keys(PHASES)) {
        for (const [kind, make] of Object.entries(kinds)) {
          const ws = new ctx.WS(`${ctx.base}/events/ws`)
          await new Promise((resolve) => ws.addEventListener('open', resolve))
          const closed = new Promise<void>((resolve) =>
            ws.addEventListener('close', (e) => {
              const c = e as CloseEvent
              ctx.log.push(`${phase} ${kind}: close code=${c.code} reason=${JSON.stringify(c.reason)} wasClean=${c.wasClean} state=${ws.readyState}`)
              resolve()
            }),
          )
          // readyState right after send(), after its microtasks, then after each of 8 setImmediate turns.
          const states = await new Promise<string>((resolve) =>
            PHASES[phase](() => {
              ws.send('small')
              ws.send(make())
              ws.send('after')
              const seen = [ws.readyState]
              void Promise.resolve().then(() => seen.push(ws.readyState))
              let turns = 0
              const next = () => {
                seen.push(ws.readyState)
                if (++turns < 8) setImmediate(next)
                else resolve(seen.join(' '))
              }
              setImmediate(next)
            }),
          )
          ctx.log.push(`${phase} ${kind}: ${states}`)
          await closed
        }
      }
      const closes = ctx.fake.journal.ofType('ws.close')
      ctx.log.push(`journal: ${closes.length} closes, ${closes.filter((c) => c.by === 'server' && c.code === 1009).length} by the server with 1009`)
    }
    const server = await transcript(script, 'server')
    expect(await transcript(script, 'in-process')).toEqual(server)
    expect(server).toContain('poll text: 1 1 1 1 2 2 3 3 3 3')
  })
})
