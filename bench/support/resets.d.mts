import type { Container, Dockside, DocksideServer } from '../../src/index'

export function resetRounds(options: {
  fake: Dockside
  server: DocksideServer & { connections(): number }
  web: Container
  seconds?: number
  rounds?: number
  onSample?: (round: number) => void
  sampleEvery?: number
}): Promise<{ rounds: number; resets: number }>
