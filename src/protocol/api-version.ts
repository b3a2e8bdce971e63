/** Whether the request's API version is `min` or later; none given is the latest, as the daemon reads it. */
export function apiAtLeast(version: string | undefined, min: string): boolean {
  if (version === undefined) return true
  const a = version.split('.').map(Number)
  const b = min.split('.').map(Number)
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0)
    if (d !== 0) return d > 0
  }
  return true
}
