/**
 * Whether the fake serves a method and path, derived from the protocol's own route list
 * (`protocol.routes`, e.g. `'HEAD|GET /_ping, GET /version'`), so the two cannot drift apart.
 */
export interface RouteMatcher {
  /** True when `method path` (path without query; an API version prefix is allowed) is a route the fake serves. */
  http(method: string, path: string): boolean
  /** True when `path` is a websocket endpoint the fake serves. */
  websocket(path: string): boolean
}

interface Rule {
  methods: string[] | undefined
  pattern: RegExp
  websocket: boolean
}

const escape = (s: string) => s.replace(/[.*+?^$()|[\]\\]/g, '\\$&')

function compile(route: string): Rule | undefined {
  const websocket = /\(websocket\)\s*$/.test(route)
  const text = route.replace(/\(.*?\)\s*$/, '').trim()
  const m = /^(?:([A-Z|]+)\s+)?(\/\S*)$/.exec(text)
  if (!m) return undefined
  const methods = m[1]?.split('|')
  let path = m[2]
  let tail = '$'
  if (path.endsWith('/*')) {
    path = path.slice(0, -2)
    tail = '(?:/.*)?$'
  }
  // `{name}` and `{id}` may hold slashes (`localhost:5000/team/app`; the daemon's `{name:.*}` and `{id:.+}`: a name with a
  // slash is looked up, and the protocol answers it); other placeholders are one segment.
  const source = path
    .split(/(\{[a-z]+\})/)
    .map((part) => (part === '{name}' || part === '{id}' ? '.+' : /^\{[a-z]+\}$/.test(part) ? '[^/]+' : escape(part)))
    .join('')
  return { methods, pattern: new RegExp(`^${source}${tail}`), websocket }
}

/** Matchers by route list: every fake of one version serves the same routes, so an install compiles nothing. */
const matchers = new Map<string, RouteMatcher>()

/** Builds a matcher from `protocol.routes` (once per distinct list). */
export function routeMatcher(routes: readonly string[]): RouteMatcher {
  const key = routes.join('\n')
  let matcher = matchers.get(key)
  if (!matcher) {
    if (matchers.size >= 16) matchers.clear()
    matchers.set(key, (matcher = compileMatcher(routes)))
  }
  return matcher
}

function compileMatcher(routes: readonly string[]): RouteMatcher {
  const rules = routes.flatMap((r) => r.split(/,\s*/)).map(compile).filter((r): r is Rule => r !== undefined)
  const strip = (path: string) => {
    const q = path.indexOf('?')
    const p = q < 0 ? path : path.slice(0, q)
    return p.replace(/^\/v\d+(?:\.\d+)*(?=\/)/, '')
  }
  return {
    http(method, path) {
      const p = strip(path)
      const upper = method.toUpperCase()
      return rules.some((r) => r.pattern.test(p) && (!r.methods || r.methods.includes(upper) || (r.websocket && upper === 'GET')))
    },
    websocket(path) {
      const p = strip(path)
      return rules.some((r) => r.websocket && r.pattern.test(p))
    },
  }
}
