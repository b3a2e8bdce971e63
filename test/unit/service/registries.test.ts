// The registry model (src/service/registries.ts): hosts, auth kinds, refusals word for word, commits.
import { describe, expect, it } from 'vitest'
import { createDockside } from '../../../src/index'
import { registryHost } from '../../../src/service/registries'

describe('registries', () => {
  it('the registry host of a repository', () => {
    expect(
      ['localhost:5000/app', 'localhost/app', 'registry.example.com/team/app', 'host:5000/a/b', 'team/app', 'app', 'localhost', 'ghcr.io'].map(registryHost),
    ).toEqual(['localhost:5000', 'localhost', 'registry.example.com', 'host:5000', 'docker.io', 'docker.io', 'docker.io', 'docker.io'])
  })

  it('auth kinds from the options; refusals name the host and what is needed', async () => {
    await using fake = createDockside()
    const r = fake.registries
    expect(r.add('open.example').auth).toEqual({ kind: 'open' })
    expect(r.add('basic.example', { username: 'alice', password: 's3cret' }).auth).toEqual({ kind: 'basic', username: 'alice', password: 's3cret' })
    expect(r.add('token.example:5001', { token: 'tok' }).auth).toEqual({ kind: 'token', token: 'tok' })
    expect(r.add('both.example', { token: 'tok', username: 'u', password: 'p' }).auth).toEqual({ kind: 'token', token: 'tok' })
    expect(() => r.add('e1.example', { token: '' })).toThrow('Registry "e1.example" needs a non-empty "token".')
    expect(() => r.add('e2.example', { username: 'alice' })).toThrow('Registry "e2.example" needs both "username" and "password" (or a "token"), neither empty.')
    expect(() => r.add('e3.example', { password: 'p' })).toThrow('Registry "e3.example" needs both "username" and "password" (or a "token"), neither empty.')
    expect(() => r.add('e4.example', { username: '', password: 'p' })).toThrow('Registry "e4.example" needs both "username" and "password" (or a "token"), neither empty.')
    for (const bad of ['', 'http://x', 'a b', 'host:port', 'a/b']) {
      expect(() => r.add(bad)).toThrow(`Invalid registry host "${bad}": expected host or host:port, e.g. "localhost:5000".`)
    }
    expect(() => r.add('basic.example')).toThrow(
      'A registry at "basic.example" already exists (basic auth, 0 pushed tags); each host is added once, since adding it again would drop its credentials and tags. Add every registry before anything pushes to it, or reset the fake (fake.reset(), POST /_dockside/reset) to start over.',
    )
    expect(() => r.add('token.example:5001')).toThrow(/^A registry at "token.example:5001" already exists \(token auth, 0 pushed tags\)/)
    expect(r.list().map((x) => x.host)).toEqual(['open.example', 'basic.example', 'token.example:5001', 'both.example'])
    expect(() => r.get('nope')).toThrow('No such registry: nope. Known registries: open.example, basic.example, token.example:5001, both.example.')
    r.clear()
    expect(() => r.get('nope')).toThrow('No such registry: nope. Known registries: (none).')
  })

  it('ensure creates an open registry once; a commit records blobs and replaces the same tag', async () => {
    await using fake = createDockside()
    const image = fake.images.add('localhost:5000/app', { tags: ['1'], layers: [10, 20] })
    const r = fake.registries
    expect(r.ensure('localhost:5000')).toMatchObject({ host: 'localhost:5000', auth: { kind: 'open' } })
    expect(r.ensure('localhost:5000').tags).toEqual([])
    r.commit('localhost:5000', { repository: 'localhost:5000/app', tag: '1', digest: 'sha256:a', size: 5, pushedBy: 'alice', time: 1, image })
    r.commit('localhost:5000', { repository: 'localhost:5000/app', tag: '2', digest: 'sha256:b', size: 5, pushedBy: undefined, time: 2, image })
    r.commit('localhost:5000', { repository: 'localhost:5000/app', tag: '1', digest: 'sha256:c', size: 6, pushedBy: undefined, time: 3, image })
    const reg = r.get('localhost:5000')
    expect(reg.tags.map((t) => [t.tag, t.digest])).toEqual([
      ['2', 'sha256:b'],
      ['1', 'sha256:c'],
    ])
    expect(reg.get('localhost:5000/app', '1')).toEqual({ repository: 'localhost:5000/app', tag: '1', digest: 'sha256:c', size: 6, pushedBy: undefined, time: 3, layers: image.layers.map((l) => l.digest) })
    expect(reg.get('localhost:5000/app', '3')).toBeUndefined()
    expect(reg.get('localhost:5000/other', '1')).toBeUndefined()
    expect([...reg.blobs]).toEqual(image.layers.map((l) => l.digest))
    expect(JSON.parse(JSON.stringify(reg))).toMatchObject({ host: 'localhost:5000', auth: 'open', blobs: image.layers.map((l) => l.digest) })
    // A commit to an unknown host creates it, open; the conflict message counts its tags.
    r.commit('new.example', { repository: 'new.example/app', tag: '1', digest: 'sha256:d', size: 1, pushedBy: undefined, time: 4, image })
    expect(() => r.add('new.example')).toThrow(/^A registry at "new.example" already exists \(open, 1 pushed tag\);/)
    expect(() => r.add('localhost:5000')).toThrow(/^A registry at "localhost:5000" already exists \(open, 2 pushed tags\);/)
  })
})
