// The page script of `ratelab audit`'s HTML report (inlined by src/report/html/audit-html.ts
// after uPlot): reads the audit's data from #report-data and draws the summary, the tables
// and a timeline per probe. Plain browser JavaScript, no build step; every text from the
// data goes into the DOM as text only. Type checked by tsc -p tsconfig.browser.json.
// @ts-check
/// <reference types="uplot" />
/** @typedef {import('./audit-html.js').AuditPage} AuditPage */
/** @typedef {import('./audit-html.js').AuditPageTimeline} AuditPageTimeline */
/**
 * @typedef {object} AuditMark How one outcome is drawn: colour, filled or hollow, size (px).
 * @property {string} outcome
 * @property {string} label
 * @property {string} stroke
 * @property {string} fill
 * @property {number} size
 */
(function () {
  'use strict';

  /** @type {AuditPage} */
  var data = JSON.parse(
    /** @type {string} */ (/** @type {HTMLElement} */ (document.getElementById('report-data')).textContent),
  );
  var root = /** @type {HTMLElement} */ (document.getElementById('report'));
  /** @type {uPlot[]} */
  var charts = [];
  window.ratelabAuditCharts = charts;

  // Okabe-Ito colours; a denial is a hollow mark and an error a small black one, so the
  // outcomes differ by shape and size as well as colour.
  /** @type {AuditMark[]} */
  var MARKS = [
    { outcome: 'admitted', label: 'admitted', stroke: '#0072B2', fill: '#0072B2', size: 6 },
    { outcome: 'delayed', label: 'admitted, delayed', stroke: '#E69F00', fill: '#E69F00', size: 7 },
    { outcome: 'denied', label: 'denied', stroke: '#D55E00', fill: '#ffffff', size: 7 },
    { outcome: 'error', label: 'no response (error)', stroke: '#000000', fill: '#000000', size: 4 },
  ];
  var PADDING = /** @type {uPlot.Padding} */ ([12, 24, 8, 0]);

  var kit = window.ratelabKit;
  var el = kit.el;

  /** @param {number} s */
  function formatSeconds(s) {
    return String(+s.toFixed(4)) + ' s';
  }

  function chartWidth() {
    return kit.chartWidth(root);
  }

  /**
   * The response times of the requests of one outcome, null for the others (uPlot skips a null).
   * @param {AuditPageTimeline} timeline
   * @param {string} outcome
   */
  function marks(timeline, outcome) {
    return timeline.outcome.map(function (o, i) {
      return o === outcome ? timeline.latencyMs[i] : null;
    });
  }

  /**
   * The running count of requests admitted (delayed ones too) by the endpoint, or by the oracle.
   * @param {boolean[]} admitted
   */
  function running(admitted) {
    var n = 0;
    return admitted.map(function (a) {
      n += a ? 1 : 0;
      return n;
    });
  }

  /** @param {AuditPageTimeline} timeline */
  function admittedByEndpoint(timeline) {
    return timeline.outcome.map(function (o) {
      return o === 'admitted' || o === 'delayed';
    });
  }

  /**
   * One probe: a point per request at its response time, and the running counts admitted.
   * @param {AuditPageTimeline} timeline
   * @param {HTMLElement} container
   */
  function timelineChart(timeline, container) {
    var x = timeline.sentMs.map(function (ms) {
      return ms / 1000;
    });
    var endpoint = admittedByEndpoint(timeline);
    /** @type {uPlot.Series[]} */
    var series = [
      {
        label: 'sent',
        value: function (u, v) {
          return v === null ? '-' : formatSeconds(v);
        },
      },
    ];
    /** @type {(number | null)[][]} */
    var values = [];
    MARKS.forEach(function (mark) {
      series.push({
        label: mark.label,
        scale: 'ms',
        stroke: mark.stroke,
        paths: function () {
          return null;
        },
        points: { show: true, size: mark.size, stroke: mark.stroke, fill: mark.fill, width: 1.5 },
      });
      values.push(marks(timeline, mark.outcome));
    });
    var stepped = /** @type {uPlot.Series.SteppedPathBuilderFactory} */ (uPlot.paths.stepped)({ align: 1 });
    series.push({
      label: 'admitted so far (endpoint)',
      scale: 'n',
      stroke: '#0072B2',
      width: 1.5,
      paths: stepped,
      points: { show: false },
    });
    values.push(running(endpoint));
    if (timeline.oracle) {
      var oracle = timeline.oracle;
      series.push({
        label: 'admitted so far (oracle)',
        scale: 'n',
        stroke: '#009E73',
        width: 2,
        dash: [6, 4],
        paths: stepped,
        points: { show: false },
      });
      values.push(running(oracle));
      series.push({
        label: 'oracle decides otherwise',
        scale: 'ms',
        stroke: '#CC79A7',
        paths: function () {
          return null;
        },
        points: { show: true, size: 13, stroke: '#CC79A7', fill: 'rgba(0,0,0,0)', width: 2 },
      });
      values.push(
        endpoint.map(function (a, i) {
          return a !== oracle[i] && timeline.outcome[i] !== 'error' ? timeline.latencyMs[i] : null;
        }),
      );
    }
    var u = new uPlot(
      {
        width: chartWidth(),
        height: 280,
        padding: PADDING,
        scales: { x: { time: false }, ms: { auto: true }, n: { auto: true } },
        axes: [
          {
            label: 'sent (s since the audit began)',
            values: function (u, vals) {
              return vals.map(formatSeconds);
            },
          },
          { scale: 'ms', label: 'response time (ms)' },
          { scale: 'n', side: 1, label: 'admitted so far', grid: { show: false } },
        ],
        cursor: { y: false, drag: { x: true, y: false, setScale: true } },
        series: series,
      },
      /** @type {uPlot.AlignedData} */ (/** @type {unknown} */ ([x].concat(/** @type {number[][]} */ (values)))),
      container,
    );
    charts.push(u);
  }

  root.textContent = '';
  root.appendChild(el('h1', null, data.title));
  root.appendChild(el('p', 'sub', data.subtitle));
  root.appendChild(el('p', 'summary', data.summary));
  data.tables.forEach(function (spec) {
    root.appendChild(kit.table(spec, 'audit'));
  });
  data.timelines.forEach(function (timeline) {
    var section = el('section');
    section.appendChild(el('h2', null, 'probe: ' + timeline.probe));
    section.appendChild(el('p', 'muted', timeline.purpose + ' (' + timeline.sentMs.length + ' requests)'));
    if (!timeline.oracle)
      section.appendChild(el('p', 'hint', 'no oracle for this probe (no policy inferred, or none to replay)'));
    var chart = el('div', 'chart');
    section.appendChild(chart);
    root.appendChild(section);
    if (timeline.sentMs.length > 0) timelineChart(timeline, chart);
  });

  window.addEventListener('resize', function () {
    charts.forEach(function (u) {
      u.setSize({ width: chartWidth(), height: u.height });
    });
  });
  document.body.setAttribute('data-ready', 'true');
})();
