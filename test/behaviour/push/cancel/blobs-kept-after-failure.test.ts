// Regression: layers a push reported `Pushed` were lost when the push then failed or was cancelled. With
// `{"on":"push","error":"boom","afterLayer":1}` the stream said `<layer>: Pushed`, then `boom`; the registry's blobs did
// not change, and a retry said `Pushed` again where a registry says `Layer already exists` (PROTOCOL.md "Push"). The same
// after a client disconnect (journal `push.cancelled layersDone:1`, registry blobs empty). A real registry keeps every
// blob whose upload completed; only the manifest (the tag) is written last. Now a layer's blob lands as its `Pushed`
// line goes out: what the registry holds agrees with what the stream said, a layer whose `Pushed` line was not sent
// (cut in half by `truncate`, or not reached before `afterBytes`) is not stored, and the tag still appears only when
// the whole push of that tag completed.
import { afterEach, describe, expect, it } from 'vitest'
import { createDockside, type Dockside, type DocksideServer, type FaultRule } from '../../../../src/index'
import { hasCommand, skipUnless } from '../../../clients/support/clients'
import { dockerCli } from '../../../clients/support/docker-cli'

const skip = skipUnless(hasCommand('docker'), 'the docker CLI', 'apt-get install docker-cli (Debian trixie+) or docker.io (bookworm)')

const REPO = 'localhost:5000/team/app'
const fakes: Dockside[] = []
afterEach(async () => {
  for (const f of fakes.splice(0)) await f.close()
})

/**
 * A fake on 127.0.0.1 with a two-layer image: at 1000 B/s the 100 B layer is `Pushed` after two ticks (200 ms of clock
 * time, 50 B a tick each while both push), long before the 5000 B one.
 */
async function started(options: { clock?: 'auto'; seed?: number } = {}) {
  const fake = createDockside({ seed: options.seed ?? 21, pushBandwidth: 1000, clock: options.clock })
  fakes.push(fake)
  const image = fake.images.add(`${REPO}:1.0`, { layers: [5000, 100] })
  const [big, small] = image.layers
  const server: DocksideServer = await fake.listen({ port: 0 })
  return { fake, url: server.url, big, small }
}

const blobs = (fake: Dockside) => [...fake.registries.get('localhost:5000').blobs]
const tags = (fake: Dockside) => fake.registries.list().flatMap((r) => r.tags.map((t) => `${t.repository}:${t.tag}`))
const pushedLine = (id: string) => `{"status":"Pushed","progressDetail":{},"id":"${id}"}\r\n`
const existsLine = (id: string) => `{"status":"Layer already exists","progressDetail":{},"id":"${id}"}\r\n`

/**
 * Reads a push body while moving the virtual clock 100 ms whenever the read waits, until the body ends, fails (a reset
 * fault: `TypeError: terminated`) or `stop(text)` holds. Returns the text and how it failed.
 */
async function readAdvancing(fake: Dockside, res: Response, stop: (text: string) => boolean = () => false) {
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  let text = ''
  let failure: unknown
  for (let ticks = 0; !stop(text); ) {
    let settled = false
    const read = reader.read().then(
      (r) => ((settled = true), { r }),
      (error: unknown) => ((settled = true), { error }),
    )
    // Let the fake write what is due before moving time (a step of I/O, not a sleep).
    await new Promise((r) => setImmediate(r))
    while (!settled) {
      if (++ticks > 10_000) throw new Error(`the push neither ended nor showed what was awaited after 10000 ticks; got:\n${text}`)
      await fake.clock.advance(100)
      await new Promise((r) => setImmediate(r))
    }
    const got = await read
    if ('error' in got) {
      failure = got.error
      break
    }
    if (got.r.done) break
    text += decoder.decode(got.r.value, { stream: true })
  }
  return { text, failure }
}

const push = (url: string, signal?: AbortSignal) => fetch(`${url}/images/${REPO}/push?tag=1.0`, { method: 'POST', signal })

describe.skipIf(skip)('docker CLI: a failed push keeps the layers it reported Pushed', () => {
  it('bug: after `boom` past one layer, the retry said Pushed again for it; now Layer already exists', async () => {
    const { fake, url, big, small } = await started({ clock: 'auto' })
    fake.faults.add({ on: 'push', error: 'boom', afterLayer: 1 })
    using cli = dockerCli(url)
    const failed = await cli.docker(['push', `${REPO}:1.0`])
    expect(failed.code).toBe(1)
    expect(failed.stdout).toContain(`${small.shortId}: Pushed`)
    expect(failed.stdout).not.toContain(`${big.shortId}: Pushed`)
    expect(`${failed.stdout}${failed.stderr}`).toContain('boom')
    // The registry holds what the stream said was pushed, and no tag: the manifest is written last.
    expect(blobs(fake)).toEqual([small.digest])
    expect(tags(fake)).toEqual([])

    const retry = await cli.docker(['push', `${REPO}:1.0`])
    expect(retry.stderr).toBe('')
    expect(retry.code).toBe(0)
    expect(retry.stdout).toContain(`${small.shortId}: Layer already exists`)
    expect(retry.stdout).not.toContain(`${small.shortId}: Pushed`)
    expect(retry.stdout).toContain(`${big.shortId}: Pushed`)
    expect(new Set(blobs(fake))).toEqual(new Set([small.digest, big.digest]))
    expect(tags(fake)).toEqual([`${REPO}:1.0`])
  })
})

describe('fetch on 127.0.0.1, virtual clock: blobs land as their Pushed line goes out', () => {
  it('bug: a client that left after a layer was Pushed (push.cancelled layersDone:1) left the registry empty', async () => {
    const { fake, url, big, small } = await started()
    const cancelled = new Promise((resolve) => fake.on('journal', (e) => e.type === 'push.cancelled' && resolve(e)))
    const controller = new AbortController()
    const res = await push(url, controller.signal)
    const { text } = await readAdvancing(fake, res, (t) => t.includes(pushedLine(small.shortId)))
    expect(text).not.toContain(pushedLine(big.shortId))
    // The client leaves: aborting the fetch errors its body stream, nothing more to read or cancel.
    controller.abort()
    expect(await cancelled).toMatchObject({ repository: REPO, tag: '1.0', layersDone: 1 })
    await fake.clock.advance('1m')
    expect(blobs(fake)).toEqual([small.digest])
    expect(tags(fake)).toEqual([])

    // The retry reports the layer the registry has, pushes the other, then the tag.
    const retry = await readAdvancing(fake, await push(url))
    expect(retry.failure).toBeUndefined()
    expect(retry.text).toContain(existsLine(small.shortId))
    expect(retry.text).not.toContain(pushedLine(small.shortId))
    expect(retry.text).toContain(pushedLine(big.shortId))
    expect(retry.text).toContain('"aux":{"Tag":"1.0"')
    expect(new Set(blobs(fake))).toEqual(new Set([small.digest, big.digest]))
    expect(tags(fake)).toEqual([`${REPO}:1.0`])
  })

  // What the stream said, what the registry holds: [rule, does the Pushed line of the small layer go out whole, blobs].
  it.each<[string, Omit<FaultRule, 'on'>, boolean, 'small' | 'none']>([
    ['bug: error after layer 1', { error: 'boom', afterLayer: 1 }, true, 'small'],
    ['bug: reset after layer 1 (the chunk with Pushed goes out, then the reset)', { reset: true, afterLayer: 1 }, true, 'small'],
    ['bug: stall after layer 1 (Pushed, then silence)', { stall: true, afterLayer: 1 }, true, 'small'],
    ['bug: error once 250 B were pushed (the small layer was Pushed at 150 B)', { error: 'boom', afterBytes: 250 }, true, 'small'],
    ['guard: truncate after layer 1 cuts the Pushed line in half: not stored', { truncate: true, afterLayer: 1 }, false, 'none'],
    ['guard: error at 150 B strikes as the small layer completes, before its Pushed line: not stored', { error: 'boom', afterBytes: 150 }, false, 'none'],
  ])('%s', async (_name, rule, pushedSent, stored) => {
    const { fake, url, big, small } = await started()
    fake.faults.add({ on: 'push', ...rule } as FaultRule)
    const controller = new AbortController()
    const res = await push(url, controller.signal)
    // A stall never ends the body: stop reading once the stream went as far as the fault lets it.
    const { text, failure } = await readAdvancing(fake, res, rule.stall ? (t) => t.includes(pushedLine(small.shortId)) : undefined)
    if (rule.reset || rule.truncate) expect(String((failure as Error)?.message)).toMatch(/terminated/)
    else expect(failure).toBeUndefined()
    if (rule.error) expect(text.trimEnd().split('\n').at(-1)).toBe('{"errorDetail":{"message":"boom"},"error":"boom"}')
    expect(text.includes(pushedLine(small.shortId))).toBe(pushedSent)
    expect(text).not.toContain(pushedLine(big.shortId))
    // The client leaves: aborting the fetch errors its body stream, nothing more to read or cancel.
    controller.abort()
    await fake.clock.advance('1m')
    expect(blobs(fake)).toEqual(stored === 'small' ? [small.digest] : [])
    expect(tags(fake)).toEqual([])
    expect(fake.faults.pending()).toEqual([])
  })

  it('same seed, same bytes, same registry', async () => {
    const run = async () => {
      const { fake, url } = await started({ seed: 5 })
      fake.faults.add({ on: 'push', error: 'boom', afterLayer: 1 })
      const { text } = await readAdvancing(fake, await push(url))
      return { text, blobs: blobs(fake), registries: JSON.stringify(fake.registries.list()) }
    }
    const [a, b] = [await run(), await run()]
    expect(a.blobs).toHaveLength(1)
    expect(b).toEqual(a)
  })
})
