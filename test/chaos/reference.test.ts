import { readFileSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import type { Dockside } from '../../src/index'
import type { DeliveryReport } from '../../src/service/delivery'
import { formatDeliveryReport, installDeliveryMatchers } from '../../src/vitest/delivery-matchers'
import { handwrittenClient, partysocketClient } from './clients'
import { runStoryboard } from './storyboard'

installDeliveryMatchers()

const STORYBOARD = new URL('../../examples/chaos-reconnect.yaml', import.meta.url).pathname

/** Events the fake emitted at these seconds of clock time (the storyboard's container restarts). */
const emittedAt = (fake: Dockside, seconds: number[]) =>
  fake.events.events.filter((e) => seconds.includes((e.timeMs - fake.clock.startedAt) / 1000)).map((e) => e.seq)

const clients = { handwritten: handwrittenClient, partysocket: partysocketClient }

/** The report excerpts docs/chaos.md shows under "What the fake reports", in order. */
const DOC_EXCERPTS = (() => {
  const doc = readFileSync(new URL('../../docs/chaos.md', import.meta.url), 'utf8')
  const section = doc.slice(doc.indexOf('### What the fake reports'), doc.indexOf('## 5.'))
  return [...section.matchAll(/```\n(client "reference-client"[\s\S]*?)```/g)].map((m) => m[1])
})()

/** The full report as text: the matchers' format, with every timeline line. */
const fullReport = (r: DeliveryReport) =>
  [formatDeliveryReport({ ...r, timeline: [] }), ...r.timeline.map((t) => `    +${(t.elapsedMs / 1000).toFixed(3)}s ${t.kind.padEnd(7)} ${t.detail}`)].join('\n')

/**
 * Every line of the doc's excerpt (without its `<- note`; `...` skips lines) starts a line of the report, in order.
 * Fails naming the first doc line the fake did not report.
 */
function expectDocExcerpt(excerpt: string, r: DeliveryReport) {
  const norm = (l: string) => l.trim().replace(/\s+/g, ' ')
  const actual = fullReport(r).split('\n').map(norm)
  let at = 0
  for (const raw of excerpt.split('\n')) {
    const line = norm(raw.replace(/<-.*$/, ''))
    if (line === '' || line === '...') continue
    const found = actual.findIndex((a, i) => i >= at && a.startsWith(line))
    expect(found, `docs/chaos.md shows "${line}", which the fake did not report (in this order):\n${fullReport(r)}`).toBeGreaterThanOrEqual(0)
    at = found + 1
  }
}

describe.each(Object.entries(clients))('reference client (%s) through the chaos storyboard', (_name, start) => {
  let fake: Dockside | undefined
  afterEach(async () => {
    await fake?.close()
    fake = undefined
  })

  it('loses nothing and repeats nothing when it resumes with since = last timeNano + 1 ns', async () => {
    const run = await runStoryboard(STORYBOARD, start, { resume: true })
    fake = run.fake
    expect(fake).toHaveDeliveredEachEventOnceTo('reference-client')
    // The storyboard did happen: forced closes, the 429 storm, the maximum age, the drop, the restart.
    const r = run.report
    expect(r.refusals.map((x) => x.status)).toContain(429)
    expect(r.refusals.map((x) => x.status)).toContain(503)
    const closes = r.connections.map((c) => c.code)
    expect(closes).toEqual(expect.arrayContaining([4000, 1011, 1000, 1006, 1001]))
    expect(r.connections.some((c) => c.reason?.startsWith('maximum connection age'))).toBe(true)
    // Owed: every event after its first connect (the container's first start at 0 s came before it).
    expect(r.expected).toBe(fake.events.events.length - 1)
    expect(run.frames).toHaveLength(r.expected)
    expect(new Set(run.frames).size).toBe(run.frames.length)
    expect(DOC_EXCERPTS).toHaveLength(2)
    expectDocExcerpt(DOC_EXCERPTS[0], r)
    expect(r.connections.filter((c) => c.code === 4000)).toHaveLength(3)
    expect(r.connections.filter((c) => c.reason?.startsWith('maximum connection age'))).toHaveLength(4)
  })

  it('loses exactly the events of the 429 storm and the maintenance window without since', async () => {
    const run = await runStoryboard(STORYBOARD, start, { resume: false })
    fake = run.fake
    expect(fake).not.toHaveDeliveredAllEventsTo('reference-client')
    const r = run.report
    // Refused from 31 s to 50 s and from 90 s to 95 s: both events of the restarts at 32, 42 and 92 s are gone.
    // And a forced close after the 3rd message falls between a restart's stop and start: that start is gone too,
    // although the client reconnected at the same instant of clock time.
    const forcedAt = r.connections.filter((c) => c.code === 4000).map((c) => (Date.parse(c.closedAt!) - fake!.clock.startedAt) / 1000)
    const startsAfterForcedClose = fake.events.events.filter((e) => e.action === 'start' && forcedAt.includes((e.timeMs - fake!.clock.startedAt) / 1000)).map((e) => e.seq)
    expect(startsAfterForcedClose.length).toBeGreaterThan(0)
    const lost = [...emittedAt(fake, [32, 42, 92]), ...startsAfterForcedClose].sort((a, b) => a - b)
    expect(fake).toHaveMissedEvents('reference-client', lost)
    expect(r.gaps.map((g) => g.missed)).toEqual(expect.arrayContaining([4, 2]))
    expect(r.duplicates).toEqual([])
    expectDocExcerpt(DOC_EXCERPTS[1], r)
  })

  it('receives the last event twice on each resume when since = last timeNano (Docker\'s since is inclusive)', async () => {
    const run = await runStoryboard(STORYBOARD, start, { resume: true, since: 'inclusive' })
    fake = run.fake
    expect(fake).toHaveDeliveredAllEventsTo('reference-client')
    expect(fake).not.toHaveDeliveredEachEventOnceTo('reference-client')
    expect(run.report.duplicates.length).toBeGreaterThan(0)
    // Each resume replays the last event it had: once per reconnect that followed it.
    const resumes = run.report.connections.filter((c) => c.since !== undefined).length
    expect(run.report.duplicates.reduce((n, d) => n + d.times - 1, 0)).toBe(resumes)
  })
})
