// Docker's `filters` argument as its filters.FromJSON reads it (src/protocol/filters.ts): goFiltersProblem's words
// (json.Unmarshal into map[string]map[string]bool, else the legacy map[string][]string, the first attempt's first
// error; checked against Go's encoding/json), and dockerFiltersText's refusal by API version (20.10's Go error with a
// 500, Engine 23's `invalid filter: <error>`, Engine 24's `invalid filter`, both 400) and what it reads on with.
// Found by mutation testing; the routes' own cases are in test/conformance/docker.case.ts.
import { describe, expect, it } from 'vitest'
import { dockerFiltersText, goFiltersProblem } from '../../../src/protocol/filters'
import { DocksideError, InvalidInputError } from '../../../src/service/errors'

const MIX = 'the filters mix the object form {"name":{"value":true}} and the list form {"name":["value"]}: Docker reads one form for all names'

describe('goFiltersProblem', () => {
  it('reads both forms, JSON null as a whole or as a value, and null values of a name', () => {
    for (const raw of ['{"label":{"a":true}}', '{"label":["a"]}', 'null', '{}', '{"a":null,"b":{"x":true}}', '{"a":{"x":null,"y":false}}', '{"a":null,"b":["x"]}', '{"b":["x",null]}']) {
      expect([raw, goFiltersProblem(raw)]).toEqual([raw, undefined])
    }
  })

  it("is Go's syntax error for what is not JSON", () => {
    expect(goFiltersProblem('{bad')).toBe("invalid character 'b' looking for beginning of object key string")
    expect(goFiltersProblem('{"label":')).toBe('unexpected end of JSON input')
  })

  it('names the map type for JSON that is not an object', () => {
    expect(goFiltersProblem('5')).toBe('json: cannot unmarshal number into Go value of type map[string]map[string]bool')
    expect(goFiltersProblem('"x"')).toBe('json: cannot unmarshal string into Go value of type map[string]map[string]bool')
    expect(goFiltersProblem('["x"]')).toBe('json: cannot unmarshal array into Go value of type map[string]map[string]bool')
  })

  it("is the object form's first error in document order when the list form cannot read it either", () => {
    expect(goFiltersProblem('{"a":"x","b":5}')).toBe('json: cannot unmarshal string into Go value of type map[string]bool')
    expect(goFiltersProblem('{"a":{"x":"s","y":5}}')).toBe('json: cannot unmarshal string into Go value of type bool')
    expect(goFiltersProblem('{"a":{"x":true},"b":["y",5]}')).toBe('json: cannot unmarshal array into Go value of type map[string]bool')
    expect(goFiltersProblem('{"b":["x",5]}')).toBe('json: cannot unmarshal array into Go value of type map[string]bool')
  })

  it('meets names and values that look like numbers where the text has them, as Go does (JavaScript lists them first)', () => {
    expect(goFiltersProblem('{"b":"x","1":5}')).toBe('json: cannot unmarshal string into Go value of type map[string]bool')
    expect(goFiltersProblem('{"label":{"b":"x","1":5}}')).toBe('json: cannot unmarshal string into Go value of type bool')
    // A key with quotes and a colon inside it, and a value that looks like a key, are read as what they are.
    expect(goFiltersProblem('{"a\\":":{"k":"v"},"2":"s : t"}')).toBe('json: cannot unmarshal string into Go value of type bool')
    expect(goFiltersProblem('{"2":{"x":true}, "1" : {"y": true}}')).toBeUndefined()
  })
})

describe('dockerFiltersText', () => {
  const refusal = (raw: string, version: string | undefined, reading: (raw: string) => unknown = () => undefined) => {
    try {
      dockerFiltersText(raw, version, reading)
    } catch (error) {
      const e = error as DocksideError
      return [e.wire, e.wireStatus, e.message]
    }
    throw new Error('not refused')
  }

  it("refuses in each daemon's words: 20.10's Go error (500), Engine 23's `invalid filter: ...`, then `invalid filter` (400)", () => {
    const go = 'json: cannot unmarshal string into Go value of type map[string]bool'
    expect(refusal('{"label":"x"}', '1.41')).toEqual([go, 500, MIX])
    expect(refusal('{"label":"x"}', '1.42')).toEqual([`invalid filter: ${go}`, 400, MIX])
    expect(refusal('{"label":"x"}', '1.43')).toEqual(['invalid filter', 400, MIX])
    expect(refusal('{"label":"x"}', undefined)).toEqual(['invalid filter', 400, MIX])
  })

  it("keeps the fake's own reading as the help when it is dockside's error, else says the forms are mixed", () => {
    const help = new InvalidInputError('Invalid filter "label": expected an object of booleans')
    expect(refusal('{"label":"x"}', '1.47', () => { throw help })).toEqual(['invalid filter', 400, help.message])
    expect(refusal('{"label":"x"}', '1.47', () => { throw new TypeError('not ours') })).toEqual(['invalid filter', 400, MIX])
  })

  it('reads on with the text as sent, none for no text or JSON null, and without the names given as null', () => {
    const fake = () => undefined
    expect(dockerFiltersText(undefined, '1.47', fake)).toBeUndefined()
    expect(dockerFiltersText('', '1.47', fake)).toBe('')
    expect(dockerFiltersText('null', '1.47', fake)).toBeUndefined()
    expect(dockerFiltersText('{ "label" : ["a"] }', '1.47', fake)).toBe('{ "label" : ["a"] }')
    expect(dockerFiltersText('{"a":null,"label":["x"],"b":null}', '1.47', fake)).toBe('{"label":["x"]}')
  })
})
