// Issue 8, point 4: every Docker route answers or refuses clearly. Today's bug it pins: `docker rm`, `docker
// run`, `docker network ls` and every other unserved route got a 404 "No route for ..." indistinguishable from
// a typo, and docs/docker-compat.md's list of what is not served was a sentence that could drift.
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../src/index'
import { SERVED_DOCKER_ROUTES, UNSERVED_DOCKER_ROUTES } from '../../../src/protocol/docker/routes'

const doc = readFileSync(fileURLToPath(new URL('../../../docs/docker-compat.md', import.meta.url)), 'utf8')
const section = (from: string, to: string) => doc.slice(doc.indexOf(from), doc.indexOf(to, doc.indexOf(from)))
/** Every `METHOD /path` in backticks within a part of the page. */
const routesIn = (text: string) => [...text.matchAll(/`((?:GET|HEAD|POST|PUT|DELETE) \/[^`\s]*)`/g)].map((m) => m[1]).filter((r) => r !== 'GET /events/ws')

const servedTable = section('Served routes', '### Not served')
/** Routes the fake serves with the daemon's not-found answer only (it has no networks, volumes or plugins). */
const NOT_FOUND_ONLY = ['GET /networks/{id}', 'GET /volumes/{name}', 'GET /plugins/{name}/json']
const unservedTable = section('| Area | Routes answering 501 |', '\n\n')

/** A request for a route, with its placeholders filled by things the fake has. */
function sample(route: string): { method: string; path: string; body?: string } {
  const [method, template] = route.split(' ')
  let path = template.replace('{id}', 'web').replace('{name}', 'localhost:5000/team/app')
  // A window that has passed: the stream replays and ends.
  if (path === '/events') path += `?since=${Date.UTC(2026, 0, 1) / 1000 - 10}&until=${Date.UTC(2026, 0, 1) / 1000 - 1}`
  return { method, path, body: method === 'POST' && path === '/auth' ? '{"username":"a","password":"b"}' : undefined }
}

const ways = [
  {
    name: 'server',
    async start(fake: Dockside) {
      const s = await fake.listen({ port: 0 })
      return { fetch: (path: string, init?: RequestInit) => fetch(s.url + path, init), close: () => s.close() }
    },
  },
  {
    name: 'in-process',
    async start(fake: Dockside) {
      // An unserved route is an unhandled request first; a function lets the fake's own answer through.
      const hooks = await fake.intercept({ region: 'us-west-1', onUnhandled: () => {} })
      return { fetch: (path: string, init?: RequestInit) => fetch(`https://us-west-1.hyper.test${path}`, init), close: async () => hooks.restore() }
    },
  },
]

describe('docs/docker-compat.md lists exactly the Docker routes the router serves and refuses', () => {
  it('the served table names every served route and nothing else; the 501 table every unserved one', () => {
    expect(new Set(routesIn(servedTable))).toEqual(new Set(SERVED_DOCKER_ROUTES))
    expect(routesIn(unservedTable).sort()).toEqual([...UNSERVED_DOCKER_ROUTES].sort())
  })

  for (const way of ways) {
    describe(way.name, () => {
      let fake: Dockside | undefined
      afterEach(async () => {
        await fake?.close()
        fake = undefined
      })

      it('every route listed as served answers, neither 404 nor 501', async () => {
        // The auto clock lets the push complete at once.
        fake = createDockside({ seed: 3, clock: 'auto' })
        fake.images.add('localhost:5000/team/app', { tags: ['latest'], layers: 1 })
        fake.containers.create({ name: 'web', image: 'localhost:5000/team/app' })
        const h = await way.start(fake)
        try {
          for (const route of routesIn(servedTable)) {
            const { method, path, body } = sample(route)
            const res = await h.fetch(`/v1.47${path}`, { method, body })
            if (NOT_FOUND_ONLY.includes(route)) {
              // Served so that `docker inspect` can move past them: the fake has none, so always the daemon's 404.
              expect(res.status, route).toBe(404)
              expect(((await res.json()) as { message: string }).message, route).not.toMatch(/^page not found/)
              continue
            }
            await res.arrayBuffer()
            expect([404, 501], `${route} answered ${res.status}`).not.toContain(res.status)
          }
        } finally {
          await h.close()
        }
      })

      it('every route listed as not served answers a JSON 501 naming it, and changes nothing', async () => {
        fake = createDockside({ seed: 3 })
        fake.containers.create({ name: 'web', image: 'nginx' })
        const h = await way.start(fake)
        try {
          for (const route of routesIn(unservedTable)) {
            const { method, path } = sample(route)
            const res = await h.fetch(`/v1.47${path}`, { method, body: method === 'POST' || method === 'PUT' ? '{}' : undefined })
            expect(res.status, route).toBe(501)
            expect(res.headers.get('content-type')).toBe('application/json')
            const text = await res.text()
            if (method !== 'HEAD') expect(JSON.parse(text).message, route).toMatch(new RegExp(`^${route.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is not served by this fake \\(dockside serves .*; see docs/docker-compat\\.md\\)\\.$`))
          }
          expect(fake.containers.list().map((c) => c.name)).toEqual(['web'])
        } finally {
          await h.close()
        }
      })

      it('a path that is no Docker route is a JSON 404 "page not found" naming the request', async () => {
        fake = createDockside({ seed: 3 })
        const h = await way.start(fake)
        try {
          for (const [method, path] of [
            ['GET', '/nope'],
            ['PUT', '/containers/json'],
            ['GET', '/v1.47/containers/web/frobnicate'],
          ]) {
            const res = await h.fetch(path, { method })
            expect(res.status, `${method} ${path}`).toBe(404)
            expect((await res.json()).message).toBe('page not found')
            expect(res.headers.get('x-dockside-hint')).toMatch(new RegExp(`^${method} ${path.replace('/v1.47', '')} is not a Docker Engine API route`))
          }
        } finally {
          await h.close()
        }
      })
    })
  }
})
