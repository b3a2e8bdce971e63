// The dashboard's push board (src/service/push-board.ts): what GET /_dockside/live sends as `pushes` (docs/admin-api.md:
// in flight and the last 20 ended, each layer's current/size and status, the digests pushed, the error line).
import { describe, expect, it } from 'vitest'
import { createPushBoard, ENDED_PUSHES_KEPT } from '../../../src/service/push-board'

describe('the push board', () => {
  it('begin lists a push in flight with its fields, numbered from 1, and tells each listener', () => {
    const board = createPushBoard()
    let calls = 0
    board.subscribe(() => calls++)
    expect(board.list()).toEqual([])
    const a = board.begin('localhost:5000/app', ['1', '2'], 'localhost:5000', 1_700_000_000_000)
    expect(calls).toBe(1)
    const b = board.begin('team/app', ['latest'], 'docker.io', 1_700_000_000_500)
    expect(calls).toBe(2)
    expect(a.view).toEqual({ id: 1, repository: 'localhost:5000/app', tags: ['1', '2'], registry: 'localhost:5000', startedAt: 1_700_000_000_000, state: 'pushing', layers: [], digests: {} })
    expect(Object.hasOwn(a.view, 'error')).toBe(false)
    expect(b.view.id).toBe(2)
    expect(board.list()).toEqual([a.view, b.view])
  })

  it('a layer is added once, then updated in place (current and status; the size stays)', () => {
    const board = createPushBoard()
    const t = board.begin('app', ['1'], 'docker.io', 0)
    let calls = 0
    board.subscribe(() => calls++)
    t.layer('aaaaaaaaaaaa', 300, 0, 'waiting')
    t.layer('bbbbbbbbbbbb', 200, 200, 'exists')
    expect(calls).toBe(2)
    expect(t.view.layers).toEqual([
      { id: 'aaaaaaaaaaaa', size: 300, current: 0, status: 'waiting' },
      { id: 'bbbbbbbbbbbb', size: 200, current: 200, status: 'exists' },
    ])
    t.layer('aaaaaaaaaaaa', 999, 100, 'pushing')
    expect(calls).toBe(3)
    expect(t.view.layers).toEqual([
      { id: 'aaaaaaaaaaaa', size: 300, current: 100, status: 'pushing' },
      { id: 'bbbbbbbbbbbb', size: 200, current: 200, status: 'exists' },
    ])
    t.layer('aaaaaaaaaaaa', 300, 300, 'pushed')
    expect(t.view.layers[0]).toEqual({ id: 'aaaaaaaaaaaa', size: 300, current: 300, status: 'pushed' })
    expect(t.view.layers).toHaveLength(2)
    expect(board.list()[0].layers).toBe(t.view.layers)
  })

  it('a digest is recorded per tag and tells the listeners', () => {
    const board = createPushBoard()
    const t = board.begin('app', ['1', '2'], 'docker.io', 0)
    let calls = 0
    board.subscribe(() => calls++)
    t.digest('1', 'sha256:' + 'a'.repeat(64))
    expect(calls).toBe(1)
    t.digest('2', 'sha256:' + 'b'.repeat(64))
    expect(calls).toBe(2)
    expect(t.view.digests).toEqual({ '1': 'sha256:' + 'a'.repeat(64), '2': 'sha256:' + 'b'.repeat(64) })
  })

  it('end moves a push to the ended list (listed first) with its state and error, once', () => {
    const board = createPushBoard()
    const a = board.begin('a', ['1'], 'docker.io', 0)
    const b = board.begin('b', ['1'], 'docker.io', 0)
    const c = board.begin('c', ['1'], 'docker.io', 0)
    let calls = 0
    board.subscribe(() => calls++)
    // The middle one ends: the others stay in flight, in order.
    b.end('failed', 'unauthorized: authentication required')
    expect(calls).toBe(1)
    expect(b.view.state).toBe('failed')
    expect(b.view.error).toBe('unauthorized: authentication required')
    expect(board.list().map((v) => [v.repository, v.state])).toEqual([['b', 'failed'], ['a', 'pushing'], ['c', 'pushing']])
    // Ending again (the push's `finally` marks every push cancelled) changes nothing and tells no one.
    b.end('cancelled')
    expect(calls).toBe(1)
    expect(b.view.state).toBe('failed')
    expect(b.view.error).toBe('unauthorized: authentication required')
    expect(board.list().map((v) => v.repository)).toEqual(['b', 'a', 'c'])
    a.end('done')
    expect(calls).toBe(2)
    expect(a.view.state).toBe('done')
    expect(Object.hasOwn(a.view, 'error')).toBe(false)
    expect(board.list().map((v) => [v.repository, v.state])).toEqual([['b', 'failed'], ['a', 'done'], ['c', 'pushing']])
    c.end('cancelled')
    expect(board.list().map((v) => [v.repository, v.state])).toEqual([['b', 'failed'], ['a', 'done'], ['c', 'cancelled']])
    expect(calls).toBe(3)
  })

  it(`keeps the last ${ENDED_PUSHES_KEPT} ended pushes and every push in flight`, () => {
    expect(ENDED_PUSHES_KEPT).toBe(20)
    const board = createPushBoard()
    const inFlight = board.begin('live', ['1'], 'docker.io', 0)
    for (let i = 1; i <= 20; i++) board.begin(`r${i}`, ['1'], 'docker.io', i).end('done')
    expect(board.list()).toHaveLength(21)
    expect(board.list()[0].repository).toBe('r1')
    board.begin('r21', ['1'], 'docker.io', 21).end('done')
    const names = board.list().map((v) => v.repository)
    expect(names).toEqual([...Array.from({ length: 20 }, (_, i) => `r${i + 2}`), 'live'])
    expect(board.list().at(-1)).toBe(inFlight.view)
  })

  it('subscribe returns an unsubscribe; several listeners each hear every change', () => {
    const board = createPushBoard()
    const heard: string[] = []
    const offA = board.subscribe(() => heard.push('a'))
    board.subscribe(() => heard.push('b'))
    const t = board.begin('app', ['1'], 'docker.io', 0)
    expect(heard).toEqual(['a', 'b'])
    expect(offA()).toBeUndefined()
    t.layer('aaaaaaaaaaaa', 1, 0, 'waiting')
    t.digest('1', 'sha256:x')
    t.end('done')
    expect(heard).toEqual(['a', 'b', 'b', 'b', 'b'])
  })
})
