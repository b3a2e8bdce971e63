// Review, second round: `dockside validate` passed files whose timeline fails at run time for reasons it could see.
// An invalid `create` name is now an error (exit 2); a start/stop/remove of a container nothing in the file creates
// first is a warning (exit 0: the test may create it through the API).
import { spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { cliEntry, ensureBuilt, root } from '../../support/cli'
import { killRunning, watchChild } from '../../support/cli-run'

let dir: string
beforeAll(async () => {
  ensureBuilt()
  dir = await mkdtemp(join(tmpdir(), 'dockside-validate-'))
}, 120_000)
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})
afterEach(killRunning)

async function validate(name: string, yaml: string) {
  const file = join(dir, name)
  await writeFile(file, yaml)
  const run = watchChild(spawn(process.execPath, [cliEntry, 'validate', file], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] }))
  return { file, code: (await run.exit).code, stdout: run.stdout(), stderr: run.stderr() }
}

it('bug: a create step with a name the API refuses passed validate; now exit 2 naming the step', async () => {
  const r = await validate('bad-create.yaml', 'timeline:\n  - { at: 1s, create: "my web", image: nginx }\n')
  expect(r.code).toBe(2)
  expect(r.stderr).toBe(
    `dockside: invalid scenario ${r.file}: at timeline[0].create: "my web" is not a container name (the API refuses it, so the step could never create it): allowed characters are [a-zA-Z0-9][a-zA-Z0-9_.-], like "web-1"\n`,
  )
})

it('bug: steps naming a container nothing in the file creates passed silently; now a warning each, still exit 0', async () => {
  const yaml = [
    'containers: [{ name: web, image: nginx }]',
    'timeline:',
    '  - { at: 1s, start: web }',
    '  - { at: 2s, stop: ghost }',
    '  - { at: 3s, start: late }',
    '  - { at: 4s, create: late, image: busybox }',
    '  - { at: 4s, start: late }',
    '  - { at: 5s, remove: late }',
    '  - { at: 6s, every: 6s, start: "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" }',
    '',
  ].join('\n')
  const r = await validate('unknown-names.yaml', yaml)
  expect(r.code).toBe(0)
  expect(r.stdout).toBe(`${r.file}: valid scenario\n`)
  const unless = 'unless the test creates it first (POST /_dockside/containers, fake.containers.create), the step is a timeline.error in the journal when it runs'
  expect(r.stderr).toBe(
    `dockside: warning: scenario ${r.file}: at timeline[1].stop: no container "ghost" is listed in "containers" nor created by a "create" step; ${unless}\n` +
      `dockside: warning: scenario ${r.file}: at timeline[2].start: no container "late" exists yet when this step first runs (at "3s"): timeline[3] creates it at "4s"; ${unless}\n`,
  )
})

it('a file whose steps all name containers it creates first prints no warning', async () => {
  const r = await validate('clean.yaml', 'containers: [{ name: web, image: nginx }]\ntimeline:\n  - { at: 1s, create: job, image: busybox }\n  - { at: 1s, start: job }\n  - { at: 2s, every: 2s, stop: web }\n')
  expect([r.code, r.stderr, r.stdout]).toEqual([0, '', `${r.file}: valid scenario\n`])
})
