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
    if (this.#items.length < this.limit) return void this.#items.push(item)
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
