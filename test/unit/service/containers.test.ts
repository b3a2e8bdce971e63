// The container model (src/service/containers.ts): lifecycle and its events, lookups, refusals word for word.
import { expect, it } from 'vitest'
import { createDockside } from '../../../src/index'

it('create, start, stop and remove: states, times, exit codes and one event per change', async () => {
  await using fake = createDockside()
  const c = fake.containers.create({ name: 'web', image: 'nginx:1.27', labels: { app: 'web' } })
  expect([c.state, c.exitCode, c.instanceType, c.created, c.startedAt, c.finishedAt]).toEqual(['created', 0, 's4', fake.clock.now(), undefined, undefined])
  expect(c.id).toMatch(/^[0-9a-f]{64}$/)
  await fake.clock.advance(1000)
  c.start()
  c.start()
  expect([c.state, c.startedAt]).toEqual(['running', fake.clock.now()])
  await fake.clock.advance(500)
  c.stop({ exitCode: 137 })
  c.stop()
  expect([c.state, c.exitCode, c.finishedAt]).toEqual(['exited', 137, fake.clock.now()])
  c.start()
  expect([c.state, c.exitCode]).toEqual(['running', 0])
  c.remove()
  expect(fake.events.events.map((e) => [e.action, e.name, e.attributes.exitCode])).toEqual([
    ['start', 'web', '0'],
    ['stop', 'web', '137'],
    ['start', 'web', '0'],
    ['stop', 'web', '0'],
  ])
  expect(() => c.start()).toThrow('No such container: web (it was removed).')
  expect(() => c.stop()).toThrow('No such container: web (it was removed).')
  expect(fake.containers.list()).toEqual([])
  expect(JSON.parse(JSON.stringify(c))).toMatchObject({ name: 'web', image: 'nginx:1.27', labels: { app: 'web' }, state: 'exited', instanceType: 's4' })
  expect(fake.journal.ofType('container.create')).toEqual([expect.objectContaining({ id: c.id, name: 'web', image: 'nginx:1.27' })])
})

it('refusals, word for word; nothing is created', async () => {
  await using fake = createDockside()
  fake.containers.create({ name: 'web', image: 'nginx' })
  expect(() => fake.containers.create({ image: '' })).toThrow('A container needs an "image" (a non-empty string).')
  expect(() => fake.containers.create(undefined as never)).toThrow('A container needs an "image" (a non-empty string).')
  expect(() => fake.containers.create({} as never)).toThrow('A container needs an "image" (a non-empty string).')
  expect(() => fake.containers.create({ image: 5 } as never)).toThrow('A container needs an "image" (a non-empty string).')
  expect(() => fake.containers.create({ name: '-x', image: 'a' })).toThrow('Invalid container name "-x": allowed characters are [a-zA-Z0-9][a-zA-Z0-9_.-].')
  expect(() => fake.containers.create({ name: 'web', image: 'a' })).toThrow('A container named "web" already exists. Remove it first or choose another name.')
  expect(() => fake.containers.create({ name: 'l', image: 'a', labels: { a: 1 as never } })).toThrow('Label "a" must have a string value, got 1.')
  const c = fake.containers.get('web').start()
  for (const bad of [-1, 256, 1.5]) expect(() => c.stop({ exitCode: bad })).toThrow(`Invalid exitCode ${bad}: expected an integer from 0 to 255.`)
  expect(c.state).toBe('running')
  c.stop({ exitCode: 255 })
  expect(c.exitCode).toBe(255)
  expect(fake.containers.list().map((x) => x.name)).toEqual(['web'])
})

it('lookups: name, /name, full id, a unique id prefix; an ambiguous or empty prefix finds nothing', async () => {
  await using fake = createDockside()
  const a = fake.containers.create({ name: 'a', image: 'x' })
  const b = fake.containers.create({ name: 'b', image: 'x', instanceType: 'm1' })
  expect(b.instanceType).toBe('m1')
  expect(fake.containers.get('a')).toBe(a)
  expect(fake.containers.get('/b')).toBe(b)
  expect(fake.containers.get(a.id)).toBe(a)
  expect(fake.containers.get(b.id.slice(0, 12))).toBe(b)
  expect(fake.containers.find('')).toBeUndefined()
  // The common prefix of both ids (at least the empty one) is ambiguous.
  let common = 0
  while (a.id[common] === b.id[common]) common++
  expect(fake.containers.find(a.id.slice(0, common))).toBeUndefined()
  expect(() => fake.containers.get('zzz')).toThrow('No such container: zzz. Known containers: a, b.')
  // Only a leading slash is dropped: one inside is part of the reference.
  expect(fake.containers.find('/a')).toBe(a)
  expect(fake.containers.find('a/')).toBeUndefined()
  // Removing a running container stops it first (a stop event).
  a.start()
  a.remove()
  expect(fake.events.events.map((e) => e.action)).toEqual(['start', 'stop'])
  fake.containers.clear()
  expect(() => fake.containers.get('b')).toThrow('No such container: b. Known containers: (none).')
  // A name is drawn from the seed when none is given.
  expect(fake.containers.create({ image: 'x' }).name).toMatch(/^[a-z]+_[a-z]+$/)
})

it('prefixes: a prefix two ids share finds nothing, one id\'s finds it, the empty one never (even for a lone container)', async () => {
  await using fake = createDockside()
  const lone = fake.containers.create({ name: 'lone', image: 'x' })
  expect(fake.containers.find('')).toBeUndefined()
  expect(fake.containers.find(lone.id.slice(0, 1))).toBe(lone)
  // 17 ids over 16 hex digits: two share a first digit (the seed makes it the same two every run).
  const all = [lone, ...Array.from({ length: 16 }, (_, i) => fake.containers.create({ name: `c${i}`, image: 'x' }))]
  const shared = all.map((c) => c.id[0]).find((d, i, ds) => ds.indexOf(d) !== i)!
  expect(all.filter((c) => c.id.startsWith(shared)).length).toBeGreaterThan(1)
  expect(fake.containers.find(shared)).toBeUndefined()
  expect(() => fake.containers.get(shared)).toThrow(`No such container: ${shared}. Known containers: lone, c0,`)
})

it('a name that is another container\'s full id: the full id wins, as the daemon looks; a removed or cleared name is free again', async () => {
  await using fake = createDockside()
  const first = fake.containers.create({ image: 'nginx' })
  const twin = fake.containers.create({ name: first.id, image: 'busybox' })
  expect(fake.containers.find(first.id)).toBe(first)
  twin.remove()
  expect(fake.containers.create({ name: first.id, image: 'alpine' }).image).toBe('alpine')
  const web = fake.containers.create({ name: 'web', image: 'nginx' })
  fake.containers.clear()
  const again = fake.containers.create({ name: 'web', image: 'redis' })
  // Removing the old one after a clear leaves the new one of that name alone.
  web.remove()
  expect(fake.containers.find('web')).toBe(again)
  expect(() => fake.containers.create({ name: 'web', image: 'nginx' })).toThrow(/already exists/)
})
