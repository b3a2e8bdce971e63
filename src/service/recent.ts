/** Up to this many items, a ring's array is exactly as long as what it holds. */
const SMALL = 8

/** A list that keeps its last `limit` items in a ring: O(1) per push, memory fixed once full. */
export class Recent<T> {
  #items: T[] = []
  #next = 0
  omitted = 0
  constructor(private readonly limit: number) {}
  get length() {
    return this.#items.length
  }
  push(item: T) {
    const items = this.#items
    if (items.length < this.limit) {
      // A ring of a few items grows by exact copies: thousands of idle events clients keep one or two lines each,
      // where a push would give each array V8's 17 slots.
      // Stryker disable next-line ConditionalExpression,EqualityOperator: how a ring's array grows is memory only
      if (items.length < SMALL) {
        // concat makes its array at the final length, with no spare slots (a spread or a push leaves V8's slack).
        this.#items = items.concat([item])
      } else items.push(item)
      return
    }
    this.#items[this.#next] = item
    this.#next = (this.#next + 1) % this.limit
    this.omitted++
  }
  /** Forgets the items kept (the count of omitted ones stays). */
  clear() {
    this.#items = []
    this.#next = 0
  }
  toArray(): T[] {
    return this.#next === 0 ? [...this.#items] : [...this.#items.slice(this.#next), ...this.#items.slice(0, this.#next)]
  }
}
