import type { ColumnGrid } from '../../metrics/focus-recorder.js';
import type { FocusView } from '../../sim/focus.js';
import { attackComparison, type AttackReport } from '../attack-report.js';
import { roundToPlaces } from '../round.js';
import { matrixOf, scenarioOf } from './compare-html.js';
import { htmlDocument, type HtmlChart, type HtmlTable } from './html-document.js';

/**
 * The HTML report of `ratelab attack`: compare's page for the one endpoint, its line
 * against the exact oracle's for each followed key (`followed`, from followShots), the
 * HTTP facts as tables (responses, response times, Retry-After honesty, header
 * consistency), and the response times over the run under the charts. Times are wall ms.
 */
export function attackHtml(report: AttackReport, followed: readonly FocusView[], grid: ColumnGrid): string {
  const comparison = { ...attackComparison(report), followed: [...followed] };
  const scenario = scenarioOf(comparison);
  return htmlDocument({
    title: 'ratelab attack',
    subtitle: `${report.workload.name} against ${report.url.href} at ${report.speed}x; judged in wall-clock time`,
    matrix: matrixOf([comparison]),
    scenarios: [
      {
        ...scenario,
        table: { ...scenario.table, title: 'the endpoint against the exact oracle' },
        facts: facts(report),
        extra: responseTimes(report, grid),
      },
    ],
  });
}

function facts(report: AttackReport): HtmlTable[] {
  const { responses: r, latencyMs: lat, probes: p, headerProblems } = report.analysis;
  const tables: HtmlTable[] = [
    {
      title: 'responses to the workload',
      columns: ['sent', '2xx', '429', 'other', 'no response'],
      rows: [[r.sent, r.admitted, r.limited, r.other, r.errors]],
    },
    {
      title: 'Retry-After honesty (retries sent when a 429 said to; not in the figures above)',
      columns: ['probes', 'honest (admitted)', 'dishonest (429, nothing admitted between)', 'contended', 'undecided'],
      rows: [[p.sent, p.honest, p.dishonest, p.contended, p.undecided]],
    },
    {
      title: 'rate-limit headers',
      columns: ['inconsistent responses', 'first examples'],
      rows: [[headerProblems.count, headerProblems.examples.slice(0, 3).join('; ') || '-']],
    },
  ];
  if (lat)
    tables.splice(1, 0, {
      title: 'response times, ms',
      columns: ['p50', 'p90', 'p99', 'max'],
      rows: [[lat.p50, lat.p90, lat.p99, lat.max].map((v) => roundToPlaces(v, 1))],
    });
  return tables;
}

/** The slowest and the mean response time of the workload's requests sent in each column of `grid`. */
function responseTimes(report: AttackReport, grid: ColumnGrid): HtmlChart {
  const max = new Array<number>(grid.count).fill(0);
  const sum = new Array<number>(grid.count).fill(0);
  const count = new Array<number>(grid.count).fill(0);
  for (const shot of report.run.shots) {
    if (shot.probeOf !== undefined) continue;
    const i = Math.floor((shot.sentMs - grid.fromMs) / grid.widthMs);
    if (i < 0 || i >= grid.count) continue;
    max[i] = Math.max(max[i] as number, shot.latencyMs);
    sum[i] = (sum[i] as number) + shot.latencyMs;
    count[i] = (count[i] as number) + 1;
  }
  return {
    title: 'response times of the requests sent in each column, ms',
    yLabel: 'ms',
    x: Array.from({ length: grid.count }, (_, i) => grid.fromMs + i * grid.widthMs),
    series: [
      { name: 'slowest', kind: 'limiter', values: max.map((v) => roundToPlaces(v, 2)) },
      {
        name: 'mean',
        kind: 'limiter',
        values: sum.map((v, i) => (count[i] === 0 ? 0 : roundToPlaces(v / (count[i] as number), 2))),
      },
    ],
  };
}
