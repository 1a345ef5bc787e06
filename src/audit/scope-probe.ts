import type { AuditScope } from './audit-report.js';
import { drain } from './drain.js';
import type { Identity, IdentityPool } from './identities.js';
import type { ProbeClient, ProbeShot } from './probe-client.js';

/** Who shares a quota, and the key a shot's state is under at the endpoint. */
export interface ScopeReading {
  scope: AuditScope;
  /** The endpoint's state a shot was decided against: its client (as scoped), and its path when routes are separate. */
  stateOf: (shot: ProbeShot) => string;
}

/** Options of {@link probeScope}. */
export interface ScopeProbeOptions {
  pool: IdentityPool;
  /** The client the discovery exhausted. */
  exhausted: Identity;
  /** The quota a fresh client got. */
  quota: number;
  keyHeader: string | undefined;
  /** The other paths to compare with the URL's (`--path`). */
  paths: readonly string[];
}

/** Requests one check sends at most: enough to tell a fresh quota from what trickles back meanwhile. */
const CHECK_REQUESTS = 5;

/**
 * Finds who shares a quota: right after the discovery exhausted one client, a new client
 * (new address and key) gets a fresh quota unless the limit is global; with a key header,
 * the old address with a new key, and a new address with the old key, tell which of the
 * two the limiter counts by. Each other path, asked by the exhausted client, is fresh when
 * routes have a budget each. A check is believed only when the exhausted client itself,
 * asked again at once, is still denied (else the quota trickles back too fast to tell).
 */
export async function probeScope(client: ProbeClient, options: ScopeProbeOptions): Promise<ScopeReading> {
  const { pool, exhausted, keyHeader } = options;
  const cap = Math.min(options.quota, CHECK_REQUESTS);
  const fresh = async (identity: Identity, path?: string) =>
    (await drain(client, 'scope', identity, { cap, ...(path === undefined ? {} : { path }) })).admitted >= cap;
  const evidence: string[] = [];
  const routes = await routeBudgets(options.paths, (path) => fresh(exhausted, path), evidence);
  const control = await fresh(exhausted);
  if (control) {
    evidence.push(`the exhausted client got ${cap} more at once: the quota returns too fast to tell who shares it`);
    return reading({ kind: 'unknown', evidence, ...routes });
  }
  if (!pool.canVary) {
    evidence.push('no identity could be varied (no --key-header, and the target is not an IPv4 loopback address)');
    return reading({ kind: 'unknown', evidence, ...routes });
  }
  if (!(await fresh(pool.fresh()))) {
    evidence.push('a new client (new address and key) was denied at once: one quota for everybody');
    return reading({ kind: routes.routes === 'separate' ? 'route' : 'global', evidence, ...routes });
  }
  if (keyHeader === undefined) {
    evidence.push('a new source address got a fresh quota');
    return reading({ kind: 'address', evidence, ...routes });
  }
  return reading(await keyOrAddress(options, fresh, evidence, routes));
}

async function routeBudgets(
  paths: readonly string[],
  freshOn: (path: string) => Promise<boolean>,
  evidence: string[],
): Promise<Pick<AuditScope, 'routes'>> {
  if (paths.length === 0) return {};
  let separate = 0;
  for (const path of paths) {
    const own = await freshOn(path);
    if (own) separate++;
    evidence.push(`${path}: ${own ? 'a budget of its own' : 'denied with the first path spent: one budget'}`);
  }
  return { routes: separate === paths.length ? 'separate' : 'shared' };
}

async function keyOrAddress(
  options: ScopeProbeOptions,
  fresh: (identity: Identity) => Promise<boolean>,
  evidence: string[],
  routes: Pick<AuditScope, 'routes'>,
): Promise<Omit<AuditScope, 'evidence'> & { evidence: string[] }> {
  const { pool, exhausted, keyHeader } = options;
  const byKey = await fresh(pool.withFreshKey(exhausted));
  const byAddress = pool.bindable ? await fresh(pool.withFreshAddress(exhausted)) : false;
  evidence.push(`same address, new ${keyHeader}: ${byKey ? 'fresh quota' : 'denied'}`);
  if (pool.bindable) evidence.push(`new address, same ${keyHeader}: ${byAddress ? 'fresh quota' : 'denied'}`);
  if (byKey && !byAddress) return { kind: 'header', header: keyHeader, evidence, ...routes };
  if (byAddress && !byKey) return { kind: 'address', evidence, ...routes };
  if (byKey && byAddress) evidence.push('either a new address or a new key gets a fresh quota: counted by the pair');
  return { kind: 'unknown', evidence, ...routes };
}

function reading(scope: AuditScope): ScopeReading {
  const byPath = scope.routes === 'separate';
  const clientOf = (shot: ProbeShot): string => {
    switch (scope.kind) {
      case 'address':
        return shot.identity.address ?? '';
      case 'header':
        return shot.identity.key ?? '';
      case 'global':
      case 'route':
        return '*';
      case 'unknown':
        return shot.identity.label;
    }
  };
  return { scope, stateOf: (shot) => (byPath ? `${clientOf(shot)} ${shot.path}` : clientOf(shot)) };
}
