import type { CaseResult, VerifyReport } from './run'

const WIDTH = 70

function cut(text: string, width: number): string {
  return text.length <= width ? text.padEnd(width) : `${text.slice(0, width - 1)}…`
}

/** One case as text: its verdict and id, then for a difference the first lines that differ, real and fake side by side. */
export function formatCase(result: CaseResult, options: { full?: boolean } = {}): string {
  const head = `${result.verdict.padEnd(10)} ${result.id}  ${result.title}`
  const lines = [head]
  if (result.note) lines.push(`           ${result.note}`)
  for (const d of result.deliberate) lines.push(`           deliberate ${d.id}: ${d.reason}`)
  if (result.verdict === 'differs' || (options.full && result.verdict === 'deliberate')) {
    const n = Math.max(result.real.length, result.fake.length)
    let shown = 0
    lines.push(`           ${cut('real', WIDTH)} | fake`)
    for (let i = 0; i < n && shown < (options.full ? n : 8); i++) {
      const [r, f] = [result.real[i] ?? '', result.fake[i] ?? '']
      if (r === f && !options.full) continue
      lines.push(`         ${r === f ? ' ' : '≠'} ${cut(r, WIDTH)} | ${f}`)
      shown++
    }
  }
  return lines.join('\n')
}

export function formatSummary(report: VerifyReport): string {
  const { alike, deliberate, differs, notRun } = report.summary
  const total = alike + deliberate + differs + notRun
  const lines = [
    `${total} cases against ${report.against} (Docker Engine ${report.daemon.version}, API ${report.daemon.apiVersion}): ${alike} alike, ${deliberate} deliberate, ${differs} differ, ${notRun} not run`,
  ]
  if (report.leftBehind.length) lines.push(`could not remove: ${report.leftBehind.join('; ')}`)
  return lines.join('\n')
}
