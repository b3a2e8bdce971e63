import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

// For soak tests: a real GC before each heap reading, so what is compared is what is kept, not garbage.
setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

/** Heap used after two full collections, in bytes. */
export function heapAfterGc(): number {
  gc()
  gc()
  return process.memoryUsage().heapUsed
}
