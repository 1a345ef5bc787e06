// The page script of ratelab's HTML report (inlined by src/report/html/html-document.ts after
// uPlot): reads the report's data from #report-data and draws it. Plain browser
// JavaScript, no build step; it puts every text from the data into the DOM as text only.
// Type checked against the report's types by tsc -p tsconfig.browser.json.
// @ts-check
/// <reference types="uplot" />
/** @typedef {import('./html-document.js').HtmlReport} HtmlReport */
/** @typedef {import('./html-document.js').HtmlScenario} HtmlScenario */
/** @typedef {import('./html-document.js').HtmlTable} HtmlTable */
/** @typedef {import('./html-document.js').HtmlChart} HtmlChart */
/** @typedef {import('./html-document.js').HtmlSeries} HtmlSeries */
/** @typedef {import('./html-document.js').HtmlView} HtmlView */
/** @typedef {import('./html-document.js').HtmlStrip} HtmlStrip */
/** @typedef {'admitted' | 'denied' | 'falseAdmits' | 'falseDenials'} CellKey */
/** @typedef {{ key: CellKey, label: string, color: string, pattern: 'cross' | 'diagonal' | null }} Cell */
/** @typedef {{ fromMs: number, toMs: number, label: string, color: string }} Band */
/** @typedef {{ add: (u: uPlot) => void, hook: (u: uPlot, key: string) => void, members: uPlot[] }} XGroup */
/**
 * @typedef {object} ChartRecord One scenario's charts, as the browser test reads them.
 * @property {string} scenario
 * @property {string | null} view
 * @property {uPlot | null} timeline
 * @property {uPlot[]} strips
 * @property {uPlot | null} extra
 * @property {uPlot[]} members
 * @property {{ min: number, max: number }} [full] The timeline's whole x range (s), once one is drawn.
 * @property {HtmlView['worst']} [worst] Its worst window, once a timeline is drawn.
 */
(function () {
  'use strict';

  var started = performance.now();
  // The page always has both elements (html-document.ts writes them around this script).
  /** @type {HtmlReport} */
  var data = JSON.parse(
    /** @type {string} */ (/** @type {HTMLElement} */ (document.getElementById('report-data')).textContent),
  );
  var root = /** @type {HTMLElement} */ (document.getElementById('report'));
  /**
   * Every chart drawn, per scenario: read by the browser test and handy from the console.
   * @type {ChartRecord[]}
   */
  var charts = [];
  window.ratelabCharts = charts;

  // Okabe-Ito colours (told apart with the common colour-vision deficiencies), and a dash
  // per algorithm so lines that coincide (gcra = token-bucket) still show both.
  /** @type {Record<string, { stroke: string, dash: number[] }>} */
  var KNOWN = {
    'token-bucket': { stroke: '#0072B2', dash: [] },
    gcra: { stroke: '#56B4E9', dash: [9, 5] },
    'sliding-log': { stroke: '#009E73', dash: [] },
    'sliding-counter': { stroke: '#CC79A7', dash: [12, 4, 3, 4] },
    'fixed-window': { stroke: '#D55E00', dash: [] },
  };
  var OTHERS = ['#E69F00', '#000000', '#0072B2', '#009E73', '#CC79A7', '#D55E00', '#56B4E9'];
  var OTHER_DASHES = [[], [9, 5], [3, 3], [12, 4, 3, 4]];
  var AXIS_SIZE = 64;
  var AXIS_LABEL_SIZE = 22;
  // The same padding on every chart, so a scenario's plots share their left and right edges.
  /** @type {uPlot.Padding} */
  var PADDING = [12, 24, 8, 0];
  var EPSILON = 1e-9;

  // Request strips: what the limiter did and whether the exact oracle agreed. Colour, a
  // pattern and a name each, so no one needs to tell colours apart.
  /** @type {Cell[]} */
  var CELLS = [
    { key: 'denied', label: 'denied (as the oracle)', color: '#BBBBBB', pattern: null },
    { key: 'falseDenials', label: 'falsely denied (the oracle admits)', color: '#D55E00', pattern: 'cross' },
    { key: 'falseAdmits', label: 'falsely admitted (the oracle denies)', color: '#CC79A7', pattern: 'diagonal' },
    { key: 'admitted', label: 'admitted (as the oracle)', color: '#0072B2', pattern: null },
  ];

  var kit = window.ratelabKit;
  var el = kit.el;
  var table = kit.table;

  /** @param {number} ms */
  function seconds(ms) {
    return ms / 1000;
  }

  /** @param {number | null | undefined} s */
  function formatSeconds(s) {
    if (s === null || s === undefined) return '-';
    return (Math.abs(s) >= 100 ? s.toFixed(1) : String(+s.toFixed(3))) + ' s';
  }

  /** @param {number} ms */
  function formatSpan(ms) {
    return ms < 1000 ? +ms.toFixed(3) + ' ms' : formatSeconds(seconds(ms));
  }

  /** @param {number | null | undefined} v */
  function formatRatio(v) {
    return v === null || v === undefined ? '-' : v.toFixed(3) + 'x';
  }

  /** The width of the report's content (its padding excluded), for every chart. */
  function chartWidth() {
    return kit.chartWidth(root);
  }

  /** @param {HtmlReport['matrix']} spec */
  function matrix(spec) {
    var wrap = el('section');
    wrap.appendChild(el('h2', null, 'Summary'));
    var t = el('table', 'matrix');
    var head = el('tr');
    head.appendChild(el('th', null, 'scenario'));
    spec.columns.forEach(function (c) {
      head.appendChild(el('th', null, c));
    });
    t.appendChild(head);
    spec.rows.forEach(function (row) {
      var tr = el('tr');
      tr.appendChild(el('td', null, row.scenario));
      row.cells.forEach(function (cell) {
        if (!cell) {
          tr.appendChild(el('td', null, '-'));
          return;
        }
        var over = cell.ratio > 1 + EPSILON;
        tr.appendChild(
          el(
            'td',
            over ? 'over' : 'within',
            cell.ratio.toFixed(2) + 'x' + (over ? ' \u25B2 ' : ' ') + cell.errorPercent.toFixed(1) + '%',
          ),
        );
      });
      t.appendChild(tr);
    });
    wrap.appendChild(t);
    wrap.appendChild(
      el(
        'p',
        'hint',
        'cell: worst window / limit (\u25B2 above it, shaded) and error % of requests against the exact sliding log',
      ),
    );
    return wrap;
  }

  /**
   * Fills for the strip cells: a canvas pattern for the hatched ones.
   * @param {Cell} cell
   * @returns {uPlot.Series.Fill}
   */
  function cellFill(cell) {
    if (!cell.pattern) return cell.color;
    return function (u) {
      var size = 8;
      var tile = document.createElement('canvas');
      tile.width = size;
      tile.height = size;
      var c = /** @type {CanvasRenderingContext2D} */ (tile.getContext('2d'));
      c.fillStyle = cell.color;
      c.fillRect(0, 0, size, size);
      c.strokeStyle = '#ffffff';
      c.lineWidth = 1.5;
      c.beginPath();
      c.moveTo(0, size);
      c.lineTo(size, 0);
      if (cell.pattern === 'cross') {
        c.moveTo(0, 0);
        c.lineTo(size, size);
      }
      c.stroke();
      // Never null: the tile is a canvas of 8 x 8 pixels.
      return /** @type {CanvasPattern} */ (u.ctx.createPattern(tile, 'repeat'));
    };
  }

  /**
   * The same cells as CSS, for the legends.
   * @param {Cell} cell
   */
  function cellCss(cell) {
    if (!cell.pattern) return cell.color;
    var stripes = 'repeating-linear-gradient(45deg, ' + cell.color + ' 0 4px, #ffffff 4px 6px)';
    if (cell.pattern === 'diagonal') return stripes;
    return 'repeating-linear-gradient(-45deg, transparent 0 4px, #ffffff 4px 6px), ' + stripes;
  }

  function stripKey() {
    var key = el('div', 'legend-key');
    CELLS.slice()
      .reverse()
      .forEach(function (cell) {
        var item = el('span');
        var swatch = el('span', 'swatch');
        swatch.style.background = cellCss(cell);
        item.appendChild(swatch);
        item.appendChild(document.createTextNode(cell.label));
        key.appendChild(item);
      });
    return key;
  }

  /**
   * @param {HtmlSeries} series
   * @param {number} index
   */
  function lineStyle(series, index) {
    if (series.kind === 'limit') return { stroke: '#222222', dash: [4, 4], width: 1.5 };
    if (series.kind === 'exact') return { stroke: 'rgba(0,0,0,0.30)', dash: [], width: 5 };
    if (series.kind === 'offered') return { stroke: '#999999', dash: [2, 2], width: 1 };
    var known = KNOWN[series.name];
    if (known) return { stroke: known.stroke, dash: known.dash, width: 2 };
    return { stroke: OTHERS[index % OTHERS.length], dash: OTHER_DASHES[index % OTHER_DASHES.length], width: 2 };
  }

  /**
   * Shaded spans (the worst window, outages) under the lines, labelled above them.
   * @param {Band[]} bands
   * @returns {uPlot.Plugin}
   */
  function bandsPlugin(bands) {
    /**
     * @param {uPlot} u
     * @param {Band} band
     */
    function xs(u, band) {
      var a = u.valToPos(seconds(band.fromMs), 'x', true);
      var b = u.valToPos(seconds(band.toMs), 'x', true);
      var left = Math.max(u.bbox.left, Math.min(a, b));
      var right = Math.min(u.bbox.left + u.bbox.width, Math.max(a, b));
      return right > left ? [left, right] : null;
    }
    return {
      hooks: {
        drawClear: [
          function (u) {
            bands.forEach(function (band) {
              var span = xs(u, band);
              if (!span) return;
              u.ctx.save();
              u.ctx.fillStyle = band.color;
              u.ctx.fillRect(span[0], u.bbox.top, Math.max(1, span[1] - span[0]), u.bbox.height);
              u.ctx.restore();
            });
          },
        ],
        draw: [
          function (u) {
            bands.forEach(function (band, i) {
              var span = xs(u, band);
              if (!span || !band.label) return;
              var ratio = window.devicePixelRatio || 1;
              u.ctx.save();
              u.ctx.fillStyle = '#333333';
              u.ctx.textAlign = 'left';
              u.ctx.textBaseline = 'alphabetic';
              u.ctx.font = Math.round(12 * ratio) + 'px system-ui, sans-serif';
              // Inside the plot: from the band's left edge, or ending at the plot's right edge when it would run past it.
              var width = u.ctx.measureText(band.label).width;
              var left = Math.max(
                u.bbox.left,
                Math.min(span[0] + 4 * ratio, u.bbox.left + u.bbox.width - width - 4 * ratio),
              );
              u.ctx.fillText(band.label, left, u.bbox.top + (14 + 17 * i) * ratio);
              u.ctx.restore();
            });
          },
        ],
      },
    };
  }

  /**
   * Keeps the x range of a group of charts together (zoom one, all follow).
   * @returns {XGroup}
   */
  function xGroup() {
    /** @type {uPlot[]} */
    var members = [];
    var busy = false;
    return {
      add: function (u) {
        members.push(u);
      },
      hook: function (u, key) {
        if (key !== 'x' || busy) return;
        busy = true;
        var min = /** @type {number} */ (u.scales.x.min);
        var max = /** @type {number} */ (u.scales.x.max);
        members.forEach(function (other) {
          if (other !== u) other.setScale('x', { min: min, max: max });
        });
        busy = false;
      },
      members: members,
    };
  }

  /**
   * Draws a chart's series as stepped lines against time (s), one of `group`: zooming it zooms
   * the group's other charts, and its cursor moves with theirs (`syncKey`).
   * @param {HtmlChart} spec
   * @param {Omit<uPlot.Options, 'axes' | 'cursor' | 'hooks' | 'series'>} own The chart's own options (size, title, scales, plugins).
   * @param {uPlot.Axis} yAxis
   * @param {(s: HtmlSeries, i: number) => uPlot.Series} style How each of the spec's series is drawn: stroke, width, dash and any more.
   * @param {XGroup} group
   * @param {string} syncKey
   * @param {HTMLElement} container
   */
  function lineChart(spec, own, yAxis, style, group, syncKey, container) {
    var x = spec.x.map(seconds);
    var options = Object.assign({}, own, {
      axes: [
        {
          label: 'time (s)',
          values: function (u, vals) {
            return vals.map(formatSeconds);
          },
        },
        yAxis,
      ],
      cursor: { y: false, drag: { x: true, y: false, setScale: true }, sync: { key: syncKey } },
      hooks: { setScale: [group.hook] },
      series: /** @type {uPlot.Series[]} */ ([
        {
          label: 'time',
          value: function (u, v) {
            return formatSeconds(v);
          },
        },
      ]).concat(
        spec.series.map(
          /** @returns {uPlot.Series} */ function (s, i) {
            return Object.assign(
              {
                label: s.name,
                points: { show: false },
                paths: /** @type {uPlot.Series.SteppedPathBuilderFactory} */ (uPlot.paths.stepped)({ align: 1 }),
              },
              style(s, i),
            );
          },
        ),
      ),
    });
    var u = new uPlot(
      options,
      /** @type {uPlot.AlignedData} */ (
        [x].concat(
          spec.series.map(function (s) {
            return s.values;
          }),
        )
      ),
      container,
    );
    group.add(u);
    return u;
  }

  /**
   * @param {HtmlView} view
   * @param {HtmlScenario} scenario
   * @param {XGroup} group
   * @param {string} syncKey
   * @param {HTMLElement} container
   */
  function timelineChart(view, scenario, group, syncKey, container) {
    return lineChart(
      view,
      {
        width: chartWidth(),
        height: 330,
        padding: PADDING,
        title: view.title,
        plugins: [
          bandsPlugin(
            scenario.spans
              .map(function (s) {
                return { fromMs: s.fromMs, toMs: s.toMs, label: s.label, color: 'rgba(0,0,0,0.10)' };
              })
              .concat(
                view.worst
                  ? [
                      {
                        fromMs: view.worst.fromMs,
                        toMs: view.worst.toMs,
                        label: view.worst.label,
                        color: 'rgba(230,159,0,0.22)',
                      },
                    ]
                  : [],
              ),
          ),
        ],
        scales: {
          x: { time: false },
          y: {
            range: function (u, min, max) {
              return [0, Math.max(1.1, max * 1.08)];
            },
          },
        },
      },
      {
        label: view.yLabel,
        size: AXIS_SIZE,
        labelSize: AXIS_LABEL_SIZE,
        values: function (u, vals) {
          return vals.map(function (v) {
            return +v.toFixed(2) + '';
          });
        },
      },
      function (s, i) {
        var style = lineStyle(s, i);
        return {
          stroke: style.stroke,
          width: style.width,
          dash: style.dash,
          show: !s.hidden,
          value: function (u, v) {
            return formatRatio(v);
          },
        };
      },
      group,
      syncKey,
      container,
    );
  }

  /**
   * The strip's name, and under the cursor its counts in words.
   * @param {HtmlStrip} strip
   * @param {Record<CellKey, number[]>} raw
   * @param {number[]} x
   * @param {number | null | undefined} idx
   */
  function stripCaption(strip, raw, x, idx) {
    if (idx === null || idx === undefined) return strip.name;
    var parts = CELLS.slice()
      .reverse()
      .map(function (cell) {
        return raw[cell.key][idx] + ' ' + cell.label.replace(/ \(.*\)$/, '');
      });
    return strip.name + ' at ' + formatSeconds(x[idx]) + ': ' + parts.join(', ');
  }

  /**
   * @param {HtmlStrip} strip
   * @param {number[]} x
   * @param {XGroup} group
   * @param {string} syncKey
   * @param {HTMLElement} container
   * @param {HTMLElement} caption
   */
  function stripChart(strip, x, group, syncKey, container, caption) {
    var n = x.length;
    /** @type {Record<CellKey, number[]>} */
    var raw = {
      admitted: new Array(n),
      falseAdmits: strip.falseAdmits,
      falseDenials: strip.falseDenials,
      denied: new Array(n),
    };
    for (var i = 0; i < n; i++) {
      raw.admitted[i] = strip.admitted[i] - strip.falseAdmits[i];
      raw.denied[i] = strip.denied[i] - strip.falseDenials[i];
    }
    // Stacked by drawing running totals, the tallest first: each bar covers the one under it.
    var stacked = CELLS.map(function (cell, c) {
      var out = new Array(n);
      for (var i = 0; i < n; i++) {
        var sum = 0;
        for (var k = c; k < CELLS.length; k++) sum += raw[CELLS[k].key][i];
        out[i] = sum;
      }
      return out;
    });
    // uPlot's build inlined in the page has both path builders; its types call them optional.
    var bars = /** @type {uPlot.Series.BarsPathBuilderFactory} */ (uPlot.paths.bars)({
      size: [1, Infinity],
      gap: 0,
      align: 1,
    });
    /** @type {uPlot.Options} */
    var options = {
      width: chartWidth(),
      height: 92,
      padding: PADDING,
      scales: {
        x: { time: false },
        y: {
          range: function (u, min, max) {
            return [0, Math.max(1, max)];
          },
        },
      },
      axes: [
        { show: false },
        {
          size: AXIS_SIZE,
          label: 'requests',
          labelSize: AXIS_LABEL_SIZE,
          ticks: { show: false },
          values: function (u, vals) {
            return vals.map(function (v) {
              return Number.isInteger(v) ? String(v) : '';
            });
          },
        },
      ],
      legend: { show: false },
      cursor: {
        y: false,
        drag: { x: true, y: false, setScale: true },
        sync: { key: syncKey },
        points: { show: false },
      },
      hooks: {
        setScale: [group.hook],
        setCursor: [
          function (u) {
            caption.textContent = stripCaption(strip, raw, x, u.cursor.idx);
          },
        ],
      },
      series: /** @type {uPlot.Series[]} */ ([
        {
          label: strip.name,
          value: function (u, v) {
            return formatSeconds(v);
          },
        },
      ]).concat(
        CELLS.map(
          /** @returns {uPlot.Series} */ function (cell) {
            return {
              label: cell.label,
              fill: cellFill(cell),
              stroke: cell.color,
              width: 0,
              paths: bars,
              points: { show: false },
              value: function (u, v, si, idx) {
                return idx === null || idx === undefined ? '-' : String(raw[cell.key][idx]);
              },
            };
          },
        ),
      ),
    };
    var u = new uPlot(options, /** @type {uPlot.AlignedData} */ ([x].concat(stacked)), container);
    group.add(u);
    return u;
  }

  /**
   * @param {HtmlChart} spec
   * @param {XGroup} group
   * @param {string} syncKey
   * @param {HTMLElement} container
   */
  function extraChart(spec, group, syncKey, container) {
    return lineChart(
      spec,
      { width: chartWidth(), height: 200, padding: PADDING, title: spec.title, scales: { x: { time: false } } },
      { label: spec.yLabel, size: AXIS_SIZE, labelSize: AXIS_LABEL_SIZE },
      function (s, i) {
        return {
          stroke: OTHERS[(i + 1) % OTHERS.length],
          width: 1.5,
          dash: OTHER_DASHES[i % OTHER_DASHES.length],
        };
      },
      group,
      syncKey,
      container,
    );
  }

  /**
   * @param {HtmlScenario} scenario
   * @param {number} index
   * @param {number} viewIndex
   * @param {HTMLElement} area
   * @param {ChartRecord} record
   */
  function drawView(scenario, index, viewIndex, area, record) {
    record.members.forEach(function (u) {
      u.destroy();
    });
    area.textContent = '';
    var view = scenario.views[viewIndex];
    var group = xGroup();
    var syncKey = 'scenario-' + index;
    record.view = view.label;
    record.strips = [];
    record.extra = null;
    if (view.x.length === 0) {
      area.appendChild(el('p', 'muted', 'Nothing was offered: no chart to draw.'));
      record.timeline = null;
      record.members = [];
      return;
    }
    var main = el('div', 'chart timeline');
    area.appendChild(main);
    record.timeline = timelineChart(view, scenario, group, syncKey, main);
    if (view.worst)
      area.appendChild(
        el(
          'p',
          'hint',
          'A point at time t: the most admitted in any window ending in its column. The shaded span is the worst window itself.',
        ),
      );
    if (view.strips.length > 0) {
      area.appendChild(
        el(
          'h3',
          null,
          'Request strips: the requests of ' +
            view.label.replace(/^(worst )?key /, 'key ') +
            ' per ' +
            formatSpan(view.x.length > 1 ? view.x[1] - view.x[0] : 0) +
            ' cell',
        ),
      );
      area.appendChild(stripKey());
      view.strips.forEach(function (strip) {
        var box = el('div', 'chart strip');
        var caption = el('div', 'strip-name', strip.name);
        box.appendChild(caption);
        area.appendChild(box);
        record.strips.push(stripChart(strip, view.x.map(seconds), group, syncKey, box, caption));
      });
    }
    if (scenario.extra && scenario.extra.x.length > 0) {
      var box = el('div', 'chart extra');
      area.appendChild(box);
      record.extra = extraChart(scenario.extra, group, syncKey, box);
    }
    record.members = group.members;
    record.full = { min: record.timeline.data[0][0], max: record.timeline.data[0][record.timeline.data[0].length - 1] };
    record.worst = view.worst;
  }

  /**
   * @param {HtmlScenario} scenario
   * @param {number} index
   * @param {HTMLElement} area
   * @param {ChartRecord} record
   */
  function controls(scenario, index, area, record) {
    var bar = el('div', 'controls');
    /**
     * @param {string} text
     * @param {string} title
     * @param {() => void} action
     */
    function button(text, title, action) {
      var b = el('button', null, text);
      b.type = 'button';
      b.title = title;
      b.addEventListener('click', action);
      bar.appendChild(b);
      return b;
    }
    /**
     * @param {number} min
     * @param {number} max
     */
    function setX(min, max) {
      if (!record.timeline) return;
      record.timeline.setScale('x', { min: min, max: max });
    }
    if (scenario.views.length > 1) {
      var label = el('label', null, 'show ');
      var select = el('select');
      scenario.views.forEach(function (view, i) {
        var option = el('option', null, view.label);
        option.value = String(i);
        select.appendChild(option);
      });
      select.addEventListener('change', function () {
        drawView(scenario, index, Number(select.value), area, record);
      });
      label.appendChild(select);
      bar.appendChild(label);
    }
    button('worst window', 'zoom to the worst window, one window either side', function () {
      if (!record.worst || !record.full) return;
      var w = seconds(scenario.windowMs);
      setX(
        Math.max(record.full.min, seconds(record.worst.fromMs) - w),
        Math.min(record.full.max, seconds(record.worst.toMs) + w),
      );
    });
    button('\u2190 pan', 'move left by half the span shown', function () {
      pan(-0.5);
    });
    button('pan \u2192', 'move right by half the span shown', function () {
      pan(0.5);
    });
    button('zoom out', 'show twice the span', function () {
      var s = /** @type {{ min: number, max: number } | null | undefined} */ (
        record.timeline && record.timeline.scales.x
      );
      if (!s || !record.full) return;
      var half = s.max - s.min;
      setX(Math.max(record.full.min, s.min - half / 2), Math.min(record.full.max, s.max + half / 2));
    });
    // No whole run before a timeline was drawn (a first view with nothing offered).
    button('whole run', 'show the whole run', function () {
      if (record.full) setX(record.full.min, record.full.max);
    });
    bar.appendChild(
      el(
        'span',
        'hint',
        'Drag across a chart to zoom in; double-click to see it all; hover for exact figures; click a legend entry to hide its line.',
      ),
    );
    /** @param {number} fraction */
    function pan(fraction) {
      var s = /** @type {{ min: number, max: number } | null | undefined} */ (
        record.timeline && record.timeline.scales.x
      );
      if (!s || !record.full) return;
      var span = s.max - s.min;
      var shift = span * fraction;
      var min = Math.min(Math.max(record.full.min, s.min + shift), record.full.max - span);
      setX(min, min + span);
    }
    return bar;
  }

  /**
   * @param {HtmlScenario} scenario
   * @param {number} index
   */
  function scenarioSection(scenario, index) {
    var section = el('section', 'scenario');
    section.id = 'scenario-' + index;
    section.appendChild(el('h2', null, scenario.name));
    section.appendChild(el('p', 'muted', scenario.description + ' Policy: ' + scenario.policy + '.'));
    if (scenario.notes.length > 0) {
      var notes = el('ul', 'notes');
      scenario.notes.forEach(function (note) {
        notes.appendChild(el('li', null, note));
      });
      section.appendChild(notes);
    }
    section.appendChild(table(scenario.table));
    scenario.facts.forEach(function (facts) {
      section.appendChild(table(facts));
    });
    var area = el('div', 'views');
    /** @type {ChartRecord} */
    var record = { scenario: scenario.name, view: null, timeline: null, strips: [], extra: null, members: [] };
    charts.push(record);
    if (scenario.views.length > 0) {
      section.appendChild(controls(scenario, index, area, record));
      section.appendChild(area);
    }
    root.appendChild(section);
    if (scenario.views.length > 0) drawView(scenario, index, 0, area, record);
  }

  root.textContent = '';
  root.appendChild(el('h1', null, data.title));
  root.appendChild(el('p', 'sub', data.subtitle));
  root.appendChild(matrix(data.matrix));
  data.scenarios.forEach(scenarioSection);

  /** @type {ReturnType<typeof setTimeout> | number} */
  var resizeTimer = 0;
  window.addEventListener('resize', function () {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(function () {
      charts.forEach(function (record) {
        record.members.forEach(function (u) {
          u.setSize({ width: chartWidth(), height: u.height });
        });
      });
    }, 100);
  });
  /** Milliseconds from the start of navigation to every chart drawn, and of them this script's (docs/report.md quotes both). */
  window.ratelabRenderMs = performance.now();
  window.ratelabScriptMs = window.ratelabRenderMs - started;
  document.body.setAttribute('data-ready', 'true');
})();
