/**
 * Numbers the distinct keys of one stream densely from 0, by name, so two sources that
 * use the same key name share its number. Sources look a key's number up once per key
 * (here, by hash) and then carry it on every arrival, which lets the metrics find the key
 * by array index instead of hashing its name again.
 */
export class KeyIds {
  private readonly ids = new Map<string, number>();

  /** The number of key `name` (a new one on first sight). */
  idOf(name: string): number {
    let id = this.ids.get(name);
    if (id === undefined) {
      id = this.ids.size;
      this.ids.set(name, id);
    }
    return id;
  }
}
