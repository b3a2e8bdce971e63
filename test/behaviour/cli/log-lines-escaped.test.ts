// `dockside serve`'s log is one line per entry (docs/cli.md), whatever text the admin API was given. Found by the CLI
// hunt: a caption (`say`) or a label holding a newline printed a second line that read as another entry (a forged
// "event" line here), and a terminal escape (ESC [2J) went to the terminal raw, clearing the screen.
// Found by the CLI hunt (was test/cli/hunt-log-lines.test.ts).
import { spawn } from 'node:child_process'
import { afterEach, beforeAll, expect, it } from 'vitest'
import { cliEntry, ensureBuilt, root } from '../../support/cli'
import { killRunning, watchChild } from '../../support/cli-run'

beforeAll(() => ensureBuilt(), 120_000)
afterEach(() => killRunning())

it('control characters of a caption and a label are escaped: each entry stays one line, no escape reaches the terminal', async () => {
  const run = watchChild(spawn(process.execPath, [cliEntry, 'serve', '--port', '0', '--clock', 'virtual'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] }))
  const [, url] = await run.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/)
  const post = (path: string, body: unknown) => fetch(`${url}${path}`, { method: 'POST', body: JSON.stringify(body) }).then((r) => r.status)
  const forged = '2026-01-01T00:00:00.000Z event   container start 000000000000 (name=forged)'
  expect(await post('/_dockside/scenario', { timeline: [{ at: '1s', say: `two\n${forged}\u001b[2J` }] })).toBe(200)
  expect(await post('/_dockside/containers', { name: 'web', image: 'nginx', labels: { note: `a\r\n${forged}` }, start: true })).toBe(201)
  expect(await post('/_dockside/clock/advance', { by: '1s' })).toBe(200)
  await run.waitFor(/clock\/advance -> 200\n/)
  const log = run.stdout()
  expect(log).not.toContain('\u001b')
  // Every line is an entry of its own, starting with its time; the forged one is inside another, escaped.
  expect(log.split('\n').filter((l) => l !== '' && !l.startsWith('dockside listening') && !/^\d{4}-\d\d-\d\dT/.test(l))).toEqual([])
  expect(log.split('\n').filter((l) => l.startsWith(forged))).toEqual([])
  expect(log).toContain(`say     two\\n${forged}\\u001b[2J\n`)
  expect(log).toContain(`note=a\\r\\n${forged}`)
})
