import { isIP } from 'node:net';
import { isLoopbackAddress } from '../core/loopback.js';

/**
 * Who a request claims to be: the source address its socket is bound to (undefined: the
 * system's choice) and the value of the key header (undefined: none sent).
 */
export interface Identity {
  /** A short name for reports: `a2` (127.0.0.2), `a2/k7` (and key 7). */
  label: string;
  address: string | undefined;
  key: string | undefined;
}

/** The loopback source addresses a fresh identity may bind: 127.0.0.2 to 127.0.0.254. */
const FIRST_HOST = 2;
const LAST_HOST = 254;
/** How many such addresses there are. */
const HOSTS = LAST_HOST - FIRST_HOST + 1;

/**
 * Hands out fresh identities, each a client the limiter has not seen: a new loopback source
 * address (Linux routes all of 127.0.0.0/8 to `lo`, so binding the socket to 127.0.0.2 ...
 * 127.0.0.254 makes a per-address limiter see a new client) and, with a key header, a new
 * key value. Addresses are used only when the target itself is an IPv4 loopback address;
 * once they run out, identities differ by key alone (and {@link freshAddresses} says so).
 * The addresses start at a random one and go round, so that an audit run just after
 * another (whose clients the endpoint may still count) starts on others.
 */
export class IdentityPool {
  /** Addresses handed out so far. */
  private taken = 0;
  /** The first address's host number: random, so that an audit run just after another does not start on the clients it spent. */
  private readonly firstHost: number;
  private nextKey = 1;
  private readonly runTag: string;

  /**
   * @param targetHost the URL's host name (an address after resolution, brackets removed)
   * @param keyHeader the header that carries a key, when the audit has one
   * @param runTag makes this audit's keys unlike another run's (default: random)
   */
  constructor(
    targetHost: string,
    private readonly keyHeader: string | undefined,
    runTag: string = Math.random().toString(36).slice(2, 8),
  ) {
    this.bindable = isIP(targetHost) === 4 && isLoopbackAddress(targetHost);
    this.runTag = runTag;
    this.firstHost = FIRST_HOST + Math.floor(Math.random() * HOSTS);
  }

  /** Whether source addresses can vary (the target is an IPv4 loopback address). */
  readonly bindable: boolean;

  /** Whether fresh identities still get fresh addresses. */
  get freshAddresses(): boolean {
    return this.bindable && this.taken < HOSTS;
  }

  /** Whether identities can differ at all (by address or key). */
  get canVary(): boolean {
    return this.freshAddresses || this.keyHeader !== undefined;
  }

  /** A client never seen before: a new address (when bindable) and a new key (with a key header). */
  fresh(): Identity {
    return this.make(this.takeAddress(), this.takeKey());
  }

  /** `base` with a new key and the same address. */
  withFreshKey(base: Identity): Identity {
    return this.make(base.address, this.takeKey());
  }

  /** `base` with a new address and the same key. */
  withFreshAddress(base: Identity): Identity {
    return this.make(this.takeAddress(), base.key);
  }

  private takeAddress(): string | undefined {
    if (!this.freshAddresses) return undefined;
    const host = FIRST_HOST + ((this.firstHost - FIRST_HOST + this.taken++) % HOSTS);
    return `127.0.0.${host}`;
  }

  private takeKey(): string | undefined {
    if (this.keyHeader === undefined) return undefined;
    return `ratelab-audit-${this.runTag}-${this.nextKey++}`;
  }

  private make(address: string | undefined, key: string | undefined): Identity {
    const parts: string[] = [];
    if (address !== undefined) parts.push(`a${address.split('.')[3]}`);
    if (key !== undefined) parts.push(`k${key.split('-').pop()}`);
    return { label: parts.length === 0 ? 'default' : parts.join('/'), address, key };
  }
}
