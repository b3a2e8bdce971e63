import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import WebSocket from 'ws'
import { createDockside, demoScenario, type Dockside, type DocksideServer } from 'dockside'

const run = promisify(execFile)

// Every ```sh block of docs/admin-api.md runs, in order, against one fake; a ```json block right
// after it is what the last command's answer must contain.
const doc = readFileSync('docs/admin-api.md', 'utf8')
const examples = [...doc.matchAll(/```sh\n([\s\S]*?)```(?:\n```json\n([\s\S]*?)```)?/g)].map((m) => ({ sh: m[1].trim(), expected: m[2]?.trim() }))

describe('docs/admin-api.md curl examples', () => {
  let fake: Dockside
  let server: DocksideServer
  let dashboard: WebSocket
  beforeAll(async () => {
    fake = createDockside({ scenario: demoScenario, fleet: true })
    server = await fake.listen({ port: 0 })
    // The deliveries examples read about a client called "dashboard": keep one connected.
    dashboard = new WebSocket(`${server.wsUrl}/events/ws?client=dashboard`)
    await new Promise((resolve, reject) => {
      dashboard.once('open', resolve)
      dashboard.once('error', reject)
    })
  })
  afterAll(async () => {
    dashboard.terminate()
    await fake.close()
  })

  test('the page has examples for every admin route', () => {
    expect(examples.length).toBeGreaterThanOrEqual(18)
  })

  examples.forEach(({ sh, expected }, i) => {
    test(`example ${i + 1}: ${sh.split('\n')[0].slice(0, 90)}`, async () => {
      // The block runs as written; every curl answer is a line of JSON, and the last one is checked.
      const script = `curl() { command curl "$@"; echo; }\n${sh}`
      const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script], { env: { ...process.env, DOCKSIDE: server.url } })
      const answers = stdout.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as unknown)
      expect(answers.length).toBeGreaterThan(0)
      const last = answers.at(-1)
      if (expected) expect(last).toMatchObject(JSON.parse(expected))
    })
  })
})
