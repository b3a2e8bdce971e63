// Regression found by the fidelity audit: the daemon decodes X-Registry-Auth with Go's encoding/json,
// which matches keys case-insensitively; the fake ignored {"Username":...,"Password":...}.
import { describe, expect, it } from 'vitest'
import { decodeRegistryAuth } from '../../../../src/index'
import { authorize } from '../../../../src/service/auth'

const header = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64')

describe('X-Registry-Auth keys match case-insensitively, as in Go (audit)', () => {
  it('bug: capitalised Username/Password/ServerAddress were ignored, so the push failed unauthorized', () => {
    const auth = decodeRegistryAuth(header({ Username: 'demo', Password: 'pw', ServerAddress: 'r.example.com', RegistryToken: 't' }))
    expect(auth).toEqual({ username: 'demo', password: 'pw', serveraddress: 'r.example.com', registrytoken: 't' })
    expect(authorize({ kind: 'basic', username: 'demo', password: 'pw' }, auth as never)).toBe(true)
  })

  it('an exact lower-case key wins over a differently cased one', () => {
    expect(decodeRegistryAuth(header({ USERNAME: 'other', username: 'demo' }))).toEqual({ username: 'demo' })
  })
})
