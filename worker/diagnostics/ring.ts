/** A fixed number of the latest items: pushing onto a full ring drops the oldest (and counts it). */
export class Ring<T> {
  readonly #items: Array<T | undefined>;
  #next = 0;
  #length = 0;
  /** Items pushed out so far. */
  dropped = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`A ring holds at least one item (got ${capacity}).`);
    this.#items = new Array<T | undefined>(capacity);
  }

  push(item: T): void {
    if (this.#length === this.capacity) this.dropped++;
    else this.#length++;
    this.#items[this.#next] = item;
    this.#next = (this.#next + 1) % this.capacity;
  }

  /** Oldest first. */
  toArray(): T[] {
    const start = (this.#next - this.#length + this.capacity) % this.capacity;
    return Array.from({ length: this.#length }, (_, i) => this.#items[(start + i) % this.capacity] as T);
  }

  get size(): number {
    return this.#length;
  }
}
