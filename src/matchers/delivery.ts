import type { Dockside } from '../dockside'
import type { DeliveryReport, EventRef } from '../service/delivery'

/** A delivery report as text: counts, missed and duplicate events, and the reconnect timeline. */
export function formatDeliveryReport(r: DeliveryReport): string {
  const ev = (e: EventRef & { times?: number }) => `    #${e.seq} ${e.action} ${e.container} at ${e.time} (timeNano ${e.timeNano})${e.times ? ` x${e.times}` : ''}`
  const lines = [
    `client ${JSON.stringify(r.client)}: ${r.expected} expected, ${r.delivered} delivered, ${r.missed.length} missed, ${r.duplicates.length} received twice or more`,
    `  connections ${r.connections.length}, refusals ${r.refusals.length}, backoff (ms of clock time) [${r.backoffMs.join(', ')}]`,
  ]
  if (r.missed.length) lines.push('  missed:', ...r.missed.slice(0, 20).map(ev), ...(r.missed.length > 20 ? [`    ... and ${r.missed.length - 20} more`] : []))
  if (r.duplicates.length) lines.push('  received more than once:', ...r.duplicates.slice(0, 20).map(ev))
  if (r.gaps.length) {
    const gap = (g: DeliveryReport['gaps'][number]) =>
      g.ongoing ? `    no connection since ${g.from} (${g.ms} ms so far, ${g.missed} missed)` : `    ${g.from} -> ${g.to} (${g.ms} ms, ${g.missed} missed)`
    lines.push('  gaps:', ...r.gaps.map(gap))
  }
  const omitted = r.omitted ? r.omitted.timeline : 0
  lines.push(`  timeline${omitted ? ` (${omitted} older lines dropped)` : ''}:`, ...r.timeline.slice(-30).map((t) => `    +${(t.elapsedMs / 1000).toFixed(3)}s ${t.kind.padEnd(7)} ${t.detail}`))
  return lines.join('\n')
}

/** Seed and fault plan: what a failing chaos run needs to be repeated byte for byte. */
export function reproduction(fake: Dockside): string {
  const rules = fake.faults.toJSON()
  if (rules.length === 0) return `Repeat this run with seed ${fake.seed} (no fault rules).`
  return `Repeat this run with seed ${fake.seed} and the fault plan:\n${fake.faults.table()}\n  rules as JSON: ${JSON.stringify(rules)}`
}

/** A client's report, or why there is none (the fake never saw that client): a failed assertion, not a thrown error. */
function reportOf(fake: unknown, client: string): DeliveryReport | { unknown: string } {
  if (!fake || typeof (fake as Dockside).deliveries?.report !== 'function') {
    throw new TypeError('expect(...) needs a fake from createDockside(), e.g. expect(fake).toHaveDeliveredAllEventsTo("client-1").')
  }
  const clients = (fake as Dockside).deliveries.clients()
  if (!clients.includes(client)) {
    const known = clients.length ? clients.map((c) => JSON.stringify(c)).join(', ') : 'none yet'
    return { unknown: `expected a report for events client ${JSON.stringify(client)}, but the fake never saw it (or forgot it). Known clients: ${known}. A client is named by its X-Dockside-Client header or client query parameter, else by its filters and address.` }
  }
  return (fake as Dockside).deliveries.report(client)
}

/** An unknown client fails the assertion whichever way it is asked (`.not` included): there is nothing to judge. */
const unknownClient = (isNot: boolean | undefined, unknown: string) => ({ pass: isNot === true, message: () => unknown })

/** Matchers over `fake.deliveries`, part of {@link matchers} (`dockside/matchers`). */
export const deliveryMatchers = {
  /**
   * Every event the client is owed was sent to it at least once: matching its filters, from its first connect (or
   * refusal) until now, or until its own clean close (docs/chaos.md, "What a client is owed").
   */
  toHaveDeliveredAllEventsTo(this: { isNot?: boolean } | void, fake: Dockside, client: string) {
    const r = reportOf(fake, client)
    if ('unknown' in r) return unknownClient(this?.isNot, r.unknown)
    const pass = r.missed.length === 0
    return {
      pass,
      message: () =>
        pass
          ? `expected client ${JSON.stringify(client)} to have missed events, but it missed none.\n${formatDeliveryReport(r)}`
          : `expected every event to reach client ${JSON.stringify(client)}, but ${r.missed.length} of ${r.expected} never did.\n${formatDeliveryReport(r)}\n${reproduction(fake)}`,
    }
  },
  /** Every event was sent to the client exactly once: nothing missed, nothing twice. */
  toHaveDeliveredEachEventOnceTo(this: { isNot?: boolean } | void, fake: Dockside, client: string) {
    const r = reportOf(fake, client)
    if ('unknown' in r) return unknownClient(this?.isNot, r.unknown)
    const pass = r.missed.length === 0 && r.duplicates.length === 0
    return {
      pass,
      message: () =>
        pass
          ? `expected client ${JSON.stringify(client)} to miss or repeat events, but each of ${r.expected} arrived exactly once.\n${formatDeliveryReport(r)}`
          : `expected each event exactly once at client ${JSON.stringify(client)}: ${r.missed.length} missed, ${r.duplicates.length} received more than once.\n${formatDeliveryReport(r)}\n${reproduction(fake)}`,
    }
  },
  /**
   * The client missed exactly these events (by sequence number, as in `fake.events.events[i].seq`), named in any order:
   * what was missed is a set (the report lists it in log order), so `[9, 8]` and `[8, 9, 9]` name the same events.
   */
  toHaveMissedEvents(this: { isNot?: boolean } | void, fake: Dockside, client: string, seqs: number[]) {
    const r = reportOf(fake, client)
    if ('unknown' in r) return unknownClient(this?.isNot, r.unknown)
    const got = r.missed.map((e) => e.seq)
    const wanted = [...new Set(seqs)].sort((a, b) => a - b)
    const pass = got.length === wanted.length && got.every((s, i) => s === wanted[i])
    return {
      pass,
      message: () => `expected client ${JSON.stringify(client)} ${pass ? 'not ' : ''}to have missed events [${seqs.join(', ')}]; it missed [${got.join(', ')}].\n${formatDeliveryReport(r)}\n${reproduction(fake)}`,
    }
  },
}
