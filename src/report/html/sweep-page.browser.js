// The page script of `ratelab compare --sweep-limit`'s HTML report (inlined by
// src/report/html/sweep-html.ts after uPlot and page-kit.browser.js): reads the sweep from
// #report-data and draws bytes per full key against the limit, log x and log y, a line per
// algorithm, and the table of every figure. Plain browser JavaScript, no build step; every
// text from the data goes into the DOM as text only. Type checked by tsc -p tsconfig.browser.json.
// @ts-check
/// <reference types="uplot" />
/** @typedef {import('./sweep-html.js').SweepPage} SweepPage */
(function () {
  'use strict';

  /** @type {SweepPage} */
  var data = JSON.parse(
    /** @type {string} */ (/** @type {HTMLElement} */ (document.getElementById('report-data')).textContent),
  );
  var root = /** @type {HTMLElement} */ (document.getElementById('report'));
  var kit = window.ratelabKit;
  var el = kit.el;

  // Okabe-Ito colours, and a dash per algorithm, so lines that lie on one another still part.
  var COLOURS = ['#0072B2', '#E69F00', '#D55E00', '#009E73', '#CC79A7', '#56B4E9', '#000000'];
  var DASHES = [[], [8, 4], [], [3, 3], [12, 4, 3, 4], [6, 2], [2, 6]];

  /**
   * `40 B`, `8.1 kB`, `82 kB`, `8.4 MB` (1 kB = 1,000 B), as the terminal chart prints them.
   * @param {number} bytes
   */
  function formatBytes(bytes) {
    var units = ['B', 'kB', 'MB', 'GB'];
    var value = bytes;
    var unit = 0;
    while (Math.abs(value) >= 1000 && unit < units.length - 1) {
      value /= 1000;
      unit++;
    }
    return value.toFixed(unit === 0 || Math.abs(value) >= 10 ? 0 : 1) + ' ' + units[unit];
  }

  /** @param {number} n */
  function formatCount(n) {
    return n.toLocaleString('en-US');
  }

  function sweepChart() {
    /** @type {uPlot.Series[]} */
    var series = [
      {
        label: 'limit',
        value: function (u, v) {
          return v === null ? '-' : formatCount(v);
        },
      },
    ];
    data.series.forEach(function (line, i) {
      series.push({
        label: line.algorithm,
        stroke: COLOURS[i % COLOURS.length],
        dash: DASHES[i % DASHES.length],
        width: 2,
        points: { show: true, size: 8, fill: COLOURS[i % COLOURS.length] },
        value: function (u, v, si, idx) {
          if (v === null || idx === null) return '-';
          var keys = line.keys[idx];
          return formatBytes(v) + (keys === null ? '' : ' (' + formatCount(keys) + ' keys)');
        },
      });
    });
    /** @type {(number | null)[][]} */
    var values = [data.limits];
    data.series.forEach(function (line) {
      values.push(line.bytesPerKey);
    });
    var chart = el('div', 'chart');
    root.appendChild(chart);
    var u = new uPlot(
      {
        width: kit.chartWidth(root),
        height: 380,
        padding: [12, 24, 8, 0],
        scales: { x: { time: false, distr: 3 }, y: { distr: 3 } },
        axes: [
          {
            label: 'limit (units per window, log scale)',
            // A log axis leaves null where a split gets no label.
            values: function (u, vals) {
              return vals.map(function (v) {
                return v === null ? '' : formatCount(v);
              });
            },
          },
          {
            label: 'bytes per full key (log scale)',
            size: 70,
            values: function (u, vals) {
              return vals.map(function (v) {
                return v === null ? '' : formatBytes(v);
              });
            },
          },
        ],
        cursor: { drag: { x: false, y: false } },
        series: series,
      },
      /** @type {uPlot.AlignedData} */ (/** @type {unknown} */ (values)),
      chart,
    );
    window.ratelabSweepChart = u;
    window.addEventListener('resize', function () {
      u.setSize({ width: kit.chartWidth(root), height: u.height });
    });
  }

  root.textContent = '';
  root.appendChild(el('h1', null, data.title));
  root.appendChild(el('p', 'sub', data.subtitle));
  root.appendChild(
    el(
      'p',
      'hint',
      'A flat line is memory O(1) per key, whatever the limit; a line rising one decade per decade is O(limit). Hover for the figures.',
    ),
  );
  sweepChart();
  root.appendChild(kit.table(data.table));
  document.body.setAttribute('data-ready', 'true');
})();
