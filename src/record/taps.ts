import { decodeRegistryAuth } from '../service/auth'
import { registryHost } from '../service/registries'
import { splitReference } from '../service/images'
import type { Target } from '../protocol/http'
import { isAuthError, type PushOutcome, type Recording } from './recording'
import { lifecycleReader } from './lifecycle'

/**
 * What the recorder reads of one exchange: the request body it needs (a container's create), each answer line (a
 * stream) and the whole answer of a small JSON route, then the end. Everything else passes through unread.
 */
export interface Tap {
  /** Bytes of the request body to keep (0: none). */
  readonly requestBody: number
  /** Bytes of the answer to keep whole (0: none; a stream is read line by line instead). */
  readonly answerBody: number
  /** Each line of a streamed answer (push progress, events), read as it passes. */
  line?(line: string): void
  /** The exchange ended: its status, the kept bodies, and whether the upstream cut it short. */
  end(status: number, request: Buffer | undefined, answer: Buffer | undefined, cut: boolean): void | Promise<void>
}

const MiB = 1 << 20

function parse<T>(body: Buffer | undefined): T | undefined {
  if (!body?.length) return undefined
  try {
    return JSON.parse(body.toString('utf8')) as T
  } catch {
    return undefined
  }
}

interface Inspect {
  Id?: string
  RepoTags?: string[]
  RootFS?: { Layers?: string[] }
}

/** What the recorder asks the upstream itself: an image's inspect after a push (its id and full layer digests). */
export type InspectImage = (ref: string) => Promise<Inspect | undefined>

/** The tap for a request, or undefined when the recorder has no use for it. */
export function tapFor(method: string, target: Target, headers: Record<string, string | string[] | undefined>, rec: Recording, inspect: InspectImage): Tap | undefined {
  const path = target.path
  if (method === 'POST' && path === '/containers/create') {
    return {
      requestBody: MiB,
      answerBody: 64 * 1024,
      end(status, request, answer) {
        const body = parse<{ Image?: string; Labels?: Record<string, string> }>(request)
        const made = parse<{ Id?: string }>(answer)
        if (status === 201 && made?.Id) rec.container({ id: made.Id, name: target.query.get('name') || undefined, image: body?.Image, labels: body?.Labels ?? {}, running: false })
      },
    }
  }
  if (method === 'GET' && path === '/containers/json') {
    return {
      requestBody: 0,
      answerBody: 16 * MiB,
      end(status, _request, answer) {
        if (status !== 200) return
        for (const c of parse<{ Id: string; Names?: string[]; Image?: string; Labels?: Record<string, string>; State?: string }[]>(answer) ?? []) {
          rec.container({ id: c.Id, name: c.Names?.[0], image: c.Image, labels: c.Labels ?? {}, running: c.State === 'running' })
        }
      },
    }
  }
  const containerRoute = /^\/containers\/([^/]+)\/(json|[a-z]+)$/.exec(path)
  if (containerRoute && containerRoute[1] !== 'json') {
    const ref = decodeURIComponent(containerRoute[1])
    rec.named(ref)
    if (method !== 'GET' || containerRoute[2] !== 'json') return undefined
    return {
      requestBody: 0,
      answerBody: MiB,
      end(status, _request, answer) {
        const c = parse<{ Id: string; Name?: string; Config?: { Image?: string; Labels?: Record<string, string> }; State?: { Running?: boolean } }>(answer)
        if (status === 200 && c?.Id) rec.container({ id: c.Id, name: c.Name, image: c.Config?.Image, labels: c.Config?.Labels ?? {}, running: c.State?.Running })
      },
    }
  }
  if (method === 'GET' && path === '/events') {
    // Containers whose events the client read are containers it saw.
    const read = lifecycleReader()
    return { requestBody: 0, answerBody: 0, line: (l) => void (read(l) && rec.named((JSON.parse(l) as { Actor: { ID: string } }).Actor.ID)), end() {} }
  }
  const imageRoute = /^\/images\/(.+)\/(json|push)$/.exec(path)
  if (imageRoute && method === 'GET' && imageRoute[2] === 'json') {
    return {
      requestBody: 0,
      answerBody: MiB,
      end(status, _request, answer) {
        const i = parse<Inspect>(answer)
        if (status !== 200 || !i?.Id) return
        const layers = (i.RootFS?.Layers ?? []).map((digest) => ({ digest }))
        for (const ref of i.RepoTags ?? [decodeURIComponent(imageRoute[1])]) rec.image(ref, { id: i.Id, layers })
      },
    }
  }
  if (imageRoute && method === 'POST' && imageRoute[2] === 'push') return pushTap(decodeURIComponent(imageRoute[1]), target, headers, rec, inspect)
  if (method === 'POST' && path === '/auth') {
    return {
      requestBody: 64 * 1024,
      answerBody: 0,
      end(status, request) {
        // Only the registry's address is read; the credentials beside it are never kept.
        const address = parse<{ serveraddress?: string }>(request)?.serveraddress?.replace(/^https?:\/\//, '').replace(/\/.*$/, '')
        if (status === 200 && address) rec.registry(address, true)
      },
    }
  }
  return undefined
}

/** A push, line by line: its layers (ids and sizes), how many were done when it ended, and how it ended. */
function pushTap(name: string, target: Target, headers: Record<string, string | string[] | undefined>, rec: Recording, inspect: InspectImage): Tap {
  // As the push route reads it: the `tag` query wins over a tag in the name; none is every tag of the repository.
  const { repository, tag: nameTag } = splitReference(name)
  const tag = target.query.get('tag') || nameTag
  const ref = tag ? `${repository}:${tag}` : repository
  const host = registryHost(repository)
  const header = headers['x-registry-auth']
  const auth = decodeRegistryAuth(typeof header === 'string' ? header : undefined)
  // Whether the client sent credentials: the value itself is never kept.
  const credentials = auth !== undefined && !('invalid' in auth) && Boolean((auth.username && auth.password) || auth.registrytoken || auth.identitytoken)
  rec.registry(host, credentials)
  const ids: string[] = []
  const sizes = new Map<string, number>()
  let done = 0
  const outcomes: PushOutcome[] = []
  return {
    requestBody: 0,
    answerBody: 4096,
    line(l) {
      let m: { status?: string; id?: string; error?: string; progressDetail?: { total?: number }; aux?: { Tag?: string; Digest?: string; Size?: number } }
      try {
        m = JSON.parse(l)
      } catch {
        return
      }
      if (m.error !== undefined) return void outcomes.push({ kind: 'error', ref, message: m.error, afterLayer: done })
      if (m.aux?.Digest && m.aux.Size !== undefined) return void outcomes.push({ kind: 'pushed', ref: `${repository}:${m.aux.Tag ?? tag}`, digest: m.aux.Digest, size: m.aux.Size })
      if (!m.id) return
      if (m.status === 'Preparing' && !ids.includes(m.id)) ids.push(m.id)
      else if (m.status === 'Pushing' && m.progressDetail?.total) sizes.set(m.id, m.progressDetail.total)
      else if (m.status === 'Pushed' || m.status === 'Layer already exists' || m.status?.startsWith('Mounted from')) done++
    },
    async end(status, _request, answer, cut) {
      if (status !== 200) {
        const message = parse<{ message?: string }>(answer)?.message ?? answer?.toString('utf8').trim() ?? ''
        return void rec.push({ kind: 'refused', ref, status, message })
      }
      if (isAuthError(outcomes.find((o) => o.kind === 'error')?.message ?? '')) rec.registry(host, true)
      for (const o of outcomes) rec.push(o)
      if (cut && outcomes.length === 0) rec.notes.push(`the upstream cut the push of ${ref} short: no outcome recorded for it`)
      // The image as the registry was sent it: its id and full layer digests from the upstream's own inspect (the push
      // lines show 12 hex digits of each), sizes from the push's progress, the manifest from its digest line.
      const tags = outcomes.filter((o): o is Extract<PushOutcome, { kind: 'pushed' }> => o.kind === 'pushed')
      const refs = tags.length ? tags.map((t) => t.ref) : tag ? [ref] : []
      for (const r of refs) {
        const i = await inspect(r).catch(() => undefined)
        const pushedIds = [...ids].reverse()
        const full = i?.RootFS?.Layers ?? []
        const layers = full.length && full.every((d) => pushedIds.includes(d.slice(7, 19)))
          ? full.map((digest) => ({ digest, size: sizes.get(digest.slice(7, 19)) }))
          : pushedIds.map((id) => ({ digest: `sha256:${id}${'0'.repeat(52)}`, size: sizes.get(id) }))
        const pushed = tags.find((t) => t.ref === r)
        rec.image(r, { id: i?.Id, layers, ...(pushed ? { manifest: { digest: pushed.digest, size: pushed.size } } : {}) })
      }
    },
  }
}
