// The edges of the events filters beyond test/unit/service/filters.test.ts: Docker's other filter names on GET /events,
// every refusal's exact text, and what a filter that selects nothing tells the event log.
import { describe, expect, it } from 'vitest'
import { compileFilters, parseFilters, type FilterSubject } from '../../../src/index'

const web: FilterSubject = { action: 'start', id: 'abc123def456', name: 'web', image: 'nginx:1.27', labels: { app: 'web' } }
const refusal = (raw: string, docker = false) => {
  try {
    parseFilters(raw, { docker })
    return 'ok'
  } catch (error) {
    return (error as Error).message
  }
}

describe('refusals, word for word', () => {
  const rows: [string, string, string][] = [
    ['not JSON', '{nope', 'Invalid filters: "{nope" is not valid JSON. Expected an object like {"event":{"start":true},"label":["app=web"]}.'],
    ['an array', '["start"]', 'Invalid filters: expected a JSON object mapping filter names to values, got an array. Allowed filter names: container, event, image, label.'],
    ['null', 'null', 'Invalid filters: expected a JSON object mapping filter names to values, got null. Allowed filter names: container, event, image, label.'],
    ['a number', '5', 'Invalid filters: expected a JSON object mapping filter names to values, got number. Allowed filter names: container, event, image, label.'],
    ['a list of non-strings', '{"label":[1]}', 'Invalid filter "label": a list must hold only strings, got [1].'],
    ['an object of non-booleans', '{"label":{"a":"yes"}}', 'Invalid filter "label": an object must map values to true or false, got {"a":"yes"}.'],
    ['a string value', '{"label":"a"}', 'Invalid filter "label": expected an object of booleans like {"label":{"x":true}} or a list of strings like {"label":["x"]}, got "a".'],
    ['null value', '{"label":null}', 'Invalid filter "label": expected an object of booleans like {"label":{"x":true}} or a list of strings like {"label":["x"]}, got null.'],
    ['a Docker name on the websocket', '{"type":["container"]}', 'Invalid filter "type". Allowed filter names: container, event, image, label.'],
    ['an unknown event', '{"event":{"die":true}}', 'Invalid filter "event": "die" is not an event this service emits. Allowed values: start, stop.'],
  ]
  it.each(rows)('%s', (_name, raw, message) => {
    expect(refusal(raw)).toBe(message)
  })

  it('a long value is cut at 200 characters; a deeply nested one is named, not shown', () => {
    const long = JSON.stringify({ label: ['x'.repeat(300), 5] })
    expect(refusal(long)).toBe(`Invalid filter "label": a list must hold only strings, got ${JSON.stringify(['x'.repeat(300), 5]).slice(0, 200)}....`)
    const notJson = 'y'.repeat(300)
    expect(refusal(notJson)).toBe(`Invalid filters: ${JSON.stringify('y'.repeat(200))} is not valid JSON. Expected an object like {"event":{"start":true},"label":["app=web"]}.`)
    const deep = `{"label":{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`
    expect(refusal(deep)).toBe('Invalid filter "label": an object must map values to true or false, got (a value nested too deeply to show).')
    // Exactly 200 characters are shown whole, without the ellipsis.
    const list = ['z'.repeat(194), 5]
    expect(JSON.stringify(list)).toHaveLength(200)
    expect(refusal(JSON.stringify({ label: list }))).toBe(`Invalid filter "label": a list must hold only strings, got ${JSON.stringify(list)}.`)
  })

  it("Docker's /events takes its other names, and ignores names and events it does not know, as moby's getEvents does; the websocket refuses them", () => {
    expect(refusal('{"type":["container"],"scope":["local"],"network":["n"]}', true)).toBe('ok')
    expect(refusal('{"colour":["red"],"event":["die"]}', true)).toBe('ok')
    expect(parseFilters('{"colour":["red"],"event":["die"]}', { docker: true })).toEqual({ event: ['die'] })
    expect(refusal('{"colour":["red"]}')).toBe('Invalid filter "colour". Allowed filter names: container, event, image, label.')
  })

  it('empty values: "" and {} and [] are no filter; a name with only false values is kept empty', () => {
    expect(parseFilters('')).toEqual({})
    expect(parseFilters(null)).toEqual({})
    expect(parseFilters('{"event":{},"label":[]}')).toEqual({})
    expect(parseFilters('{"event":{"start":false}}')).toEqual({ event: [] })
    expect(parseFilters('{"event":{"start":true,"stop":false},"label":["a"]}')).toEqual({ event: ['start'], label: ['a'] })
  })
})

describe("Docker's other filter names on GET /events", () => {
  const rows: [string, string, boolean, string[] | undefined][] = [
    ['type container: all', '{"type":["container"]}', true, undefined],
    ['type image or container: all', '{"type":["image","container"]}', true, undefined],
    ['type network: none', '{"type":["network"]}', false, []],
    ['scope local: all', '{"scope":["local"]}', true, undefined],
    ['scope swarm: none', '{"scope":["swarm"]}', false, []],
    ['network by id prefix', '{"network":["abc"]}', true, undefined],
    ['network by name prefix', '{"network":["we"]}', true, undefined],
    ['network other', '{"network":["db"]}', false, undefined],
    ['network: any one of the values (values OR)', '{"network":["db","we"]}', true, undefined],
    ['daemon other', '{"daemon":["x"]}', false, undefined],
    ['config, secret, service, node, plugin, volume by name', '{"config":["web"],"secret":["web"],"service":["web"],"node":["web"],"plugin":["web"],"volume":["web"]}', true, undefined],
    ['type none with an event: none, no kind', '{"type":["network"],"event":["start"]}', false, []],
    ['event stop: kinds', '{"event":["stop"]}', false, ['stop']],
    ['event start: kinds', '{"event":["start"]}', true, ['start']],
  ]
  it.each(rows)('%s', (_name, raw, matches, kinds) => {
    const f = compileFilters(parseFilters(raw, { docker: true }))
    expect(f.matches(web)).toBe(matches)
    expect(f.kinds).toEqual(kinds)
  })

  it('container: a leading slash matches no event, as in the Engine (its events name `web`, its list `/web`)', () => {
    expect(compileFilters({ container: ['/web'] }).matches(web)).toBe(false)
    // Only a leading slash: one inside is part of the value.
    expect(compileFilters({ container: ['we/b'] }).matches(web)).toBe(false)
    expect(compileFilters({ container: ['/we'] }).matches(web)).toBe(false)
    expect(compileFilters({ label: [] }).matches(web)).toBe(false)
  })
})

it('label: the key ends at the first "=" (an empty key included), as in Docker', () => {
  const subject = { ...web, labels: { '': 'x', 'a=b': 'c' } }
  expect(compileFilters({ label: ['=x'] }).matches(subject)).toBe(true)
  expect(compileFilters({ label: ['=y'] }).matches(subject)).toBe(false)
  expect(compileFilters({ label: ['a=b=c'] }).matches(subject)).toBe(false)
})
