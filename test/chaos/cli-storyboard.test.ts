/**
 * A chaos run launched the way a user in any language launches one: `dockside serve --scenario examples/chaos-reconnect.yaml`,
 * a client that knows nothing of dockside but its id, the clock moved and the report read through the admin API only.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import WebSocket from 'ws'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { DeliveryReport } from '../../src/service/delivery'
import { ensureBuilt, root, cliEntry as entry } from '../support/cli'


beforeAll(() => {
  ensureBuilt()
}, 120_000)

let child: ChildProcess | undefined
let client: WebSocket | undefined
let stopped = false
afterEach(() => {
  stopped = true
  client?.terminate()
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
})

/** Starts the CLI and resolves with its base URL. */
function serve(...args: string[]): Promise<string> {
  child = spawn(process.execPath, [entry, 'serve', '--port', '0', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()))
  return new Promise((resolve, reject) => {
    child!.stdout!.on('data', (d: Buffer) => {
      out += d.toString()
      const m = /(http:\/\/127\.0\.0\.1:\d+)/.exec(out)
      if (m) resolve(m[1])
    })
    child!.once('close', (code) => reject(new Error(`dockside serve exited (${code}) before listening.\nstdout:\n${out}\nstderr:\n${err}`)))
  })
}

describe('a storyboard from the CLI, observed through the admin API', () => {
  it('dockside serve --scenario examples/chaos-reconnect.yaml: forced close, a close into the 429 storm, refusals with Retry-After', async () => {
    const url = await serve('--scenario', 'examples/chaos-reconnect.yaml', '--clock', 'virtual', '--quiet')
    const admin = async <T>(path: string, body?: unknown): Promise<T> => {
      const res = await fetch(url + path, body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
      expect(res.ok, `${path}: ${res.status}`).toBe(true)
      return (await res.json()) as T
    }
    // A plain client: reconnects at once whenever it is closed or refused, without since.
    // `moves` counts what it saw (open, refusal, close), so a wait for its next move cannot miss one.
    let moves = 0
    let onMove: (() => void) | undefined
    const moved = () => {
      moves++
      onMove?.()
      onMove = undefined
    }
    const connect = () => {
      if (stopped) return
      client = new WebSocket(`${url.replace('http', 'ws')}/events/ws?client=any-language`)
      client.on('open', moved)
      client.on('unexpected-response', (_req, res) => {
        res.resume()
        moved()
        client!.terminate()
      })
      client.on('error', () => {})
      client.on('close', () => {
        moved()
        setImmediate(connect)
      })
    }
    connect()
    /** Resolves when the client moved after it had made `seen` moves. */
    const nextMove = (seen: number) => (moves > seen ? Promise.resolve() : new Promise<void>((r) => (onMove = r)))
    /** Waits, on the client's own events (no polling), until the fake served or refused it at the current clock time. */
    const settled = async () => {
      for (let i = 0; i < 500; i++) {
        const seen = moves
        const clock = await admin<{ elapsedMs: number }>('/_dockside/clock')
        const res = await fetch(`${url}/_dockside/deliveries/any-language`)
        if (res.ok) {
          const last = ((await res.json()) as DeliveryReport).timeline.at(-1)
          if (last && ((last.kind === 'open' && client?.readyState === WebSocket.OPEN) || (last.kind === 'refused' && last.elapsedMs === clock.elapsedMs))) return
        } else await res.body?.cancel()
        await nextMove(seen)
      }
      throw new Error('the client was neither served nor refused after 500 of its moves')
    }
    await settled()
    for (let s = 0; s < 52; s++) {
      await admin('/_dockside/clock/advance', { by: '1s' })
      await settled()
    }
    const r = await admin<DeliveryReport>('/_dockside/deliveries/any-language')
    expect(r.connections.map((c) => [c.code, c.reason])).toEqual(
      expect.arrayContaining([
        [4000, 'chaos: forced close'],
        [1011, 'chaos: closed into a 429 storm'],
      ]),
    )
    expect(r.refusals.length).toBeGreaterThan(0)
    expect(r.refusals.every((x) => x.status === 429 && x.retryAfter === 1)).toBe(true)
    // Gaps are bounded by log positions: the reconnect within the forced close's millisecond still came after one event.
    expect(r.gaps.map((g) => [g.from, g.to, g.missed])).toEqual([
      ['2026-01-01T00:00:12.000Z', '2026-01-01T00:00:12.000Z', 1],
      ['2026-01-01T00:00:31.000Z', '2026-01-01T00:00:50.000Z', 4],
    ])
    // Without since: the start right after the forced close at 12 s, and both restarts inside the storm.
    expect(r.missed.map((e) => `${e.action} ${e.time}`)).toEqual([
      'start 2026-01-01T00:00:12.000Z',
      'stop 2026-01-01T00:00:32.000Z',
      'start 2026-01-01T00:00:32.000Z',
      'stop 2026-01-01T00:00:42.000Z',
      'start 2026-01-01T00:00:42.000Z',
    ])
    const summary = await admin<{ client: string; missed: number }[]>('/_dockside/deliveries')
    expect(summary).toEqual([expect.objectContaining({ client: 'any-language', missed: 5 })])
    const pending = await admin<{ pending: { id: string }[] }>('/_dockside/faults/pending')
    expect(pending.pending.map((p) => p.id)).toEqual(['maintenance-503'])
  })
})
