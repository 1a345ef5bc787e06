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
/** @typedef {import('./html-document.js').HtmlTradeOff} HtmlTradeOff */
/** @typedef {import('./html-document.js').HtmlTradeOffPoint} HtmlTradeOffPoint */
/** @typedef {import('./html-document.js').HtmlBars} HtmlBars */
/** @typedef {'circle' | 'square' | 'triangle' | 'diamond' | 'down' | 'cross'} Shape */
/**
 * @typedef {object} TradeOffRecord The trade-off scatter, as the browser test reads it.
 * @property {uPlot | null} chart
 * @property {number} cost The cost axis shown (index into HtmlTradeOff.costs).
 * @property {{ contender: string, text: string, x: number, y: number }[]} labels Each median's label as drawn (its text names every median on the same spot; canvas px of its start).
 * @property {string | null} hovered The figures under the cursor, as shown.
 */
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
  // A marker shape per algorithm in the trade-off scatter, so points that coincide or
  // share a hue (gcra and token-bucket) are still told apart; a glyph of each for its legend.
  /** @type {Record<string, Shape>} */
  var KNOWN_SHAPES = {
    'token-bucket': 'circle',
    gcra: 'diamond',
    'sliding-log': 'square',
    'sliding-counter': 'triangle',
    'fixed-window': 'down',
  };
  /** @type {Shape[]} */
  var OTHER_SHAPES = ['circle', 'square', 'triangle', 'diamond', 'down', 'cross'];
  /** @type {Record<Shape, string>} */
  var SHAPE_GLYPHS = {
    circle: '\u25CF',
    square: '\u25A0',
    triangle: '\u25B2',
    diamond: '\u25C6',
    down: '\u25BC',
    cross: '\u271A',
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

  /**
   * A contender's colour and marker in the scatter and the bars: its line's colour.
   * @param {string} name
   * @param {number} index Its place among the contenders.
   * @returns {{ color: string, shape: Shape }}
   */
  function contenderMark(name, index) {
    var known = KNOWN[name];
    return {
      color: known ? known.stroke : OTHERS[index % OTHERS.length],
      shape: KNOWN_SHAPES[name] || OTHER_SHAPES[index % OTHER_SHAPES.length],
    };
  }

  /**
   * Adds a marker of `shape` centred at (x, y), `r` from its centre to its edge, to `path`.
   * @param {Path2D} path
   * @param {Shape} shape
   * @param {number} x
   * @param {number} y
   * @param {number} r
   */
  function markerPath(path, shape, x, y, r) {
    if (shape === 'circle') {
      path.moveTo(x + r, y);
      path.arc(x, y, r, 0, 2 * Math.PI);
    } else if (shape === 'square') {
      path.rect(x - r * 0.88, y - r * 0.88, r * 1.76, r * 1.76);
    } else if (shape === 'diamond') {
      path.moveTo(x, y - r * 1.2);
      path.lineTo(x + r * 1.2, y);
      path.lineTo(x, y + r * 1.2);
      path.lineTo(x - r * 1.2, y);
      path.closePath();
    } else if (shape === 'triangle' || shape === 'down') {
      var s = shape === 'triangle' ? 1 : -1;
      path.moveTo(x, y - s * r * 1.2);
      path.lineTo(x + r * 1.1, y + s * r * 0.8);
      path.lineTo(x - r * 1.1, y + s * r * 0.8);
      path.closePath();
    } else {
      var t = r * 0.4;
      path.rect(x - r, y - t, 2 * r, 2 * t);
      path.rect(x - t, y - r, 2 * t, 2 * r);
    }
  }

  /**
   * A figure as the scatter prints it: up to 3 significant digits, whole numbers whole.
   * @param {number} v
   */
  function formatFigure(v) {
    if (Math.abs(v) >= 100) return String(Math.round(v));
    return String(+v.toPrecision(3));
  }

  /**
   * Bar charts (memory, speed): a bar per contender on one scale from 0, the figure printed after it.
   * @param {HtmlBars[]} charts
   * @param {string[]} order The contenders in the report's order, for their colours.
   */
  function barCharts(charts, order) {
    var wrap = el('div', 'bars');
    charts.forEach(function (chart) {
      var box = el('div', 'bar-chart');
      box.appendChild(el('h3', null, chart.title));
      var max = Math.max.apply(
        null,
        chart.bars.map(function (bar) {
          return bar.value;
        }),
      );
      chart.bars.forEach(function (bar) {
        var row = el('div', 'bar-row');
        row.appendChild(el('span', 'bar-name', bar.name));
        var track = el('span', 'bar-track');
        var fill = el('span', 'bar');
        fill.style.width = (max > 0 ? (100 * Math.max(0, bar.value)) / max : 0).toFixed(2) + '%';
        var index = order.indexOf(bar.name);
        fill.style.background = contenderMark(bar.name, index < 0 ? 0 : index).color;
        track.appendChild(fill);
        row.appendChild(track);
        row.appendChild(el('span', 'bar-value', formatFigure(bar.value) + (chart.unit ? ' ' + chart.unit : '')));
        box.appendChild(row);
      });
      wrap.appendChild(box);
    });
    return wrap;
  }

  /**
   * Where each median's name goes: beside its marker, on the first side where it overlaps
   * no label placed before it and stays inside the plot. Canvas pixels.
   * @param {CanvasRenderingContext2D} ctx
   * @param {{ name: string, x: number, y: number }[]} marks
   * @param {uPlot.BBox} box
   * @param {number} gap From the marker's centre to the label.
   * @param {number} height The labels' font size.
   */
  function placeLabels(ctx, marks, box, gap, height) {
    /** @type {{ left: number, top: number, right: number, bottom: number }[]} */
    var taken = marks.map(function (m) {
      return { left: m.x - gap * 0.7, top: m.y - gap * 0.7, right: m.x + gap * 0.7, bottom: m.y + gap * 0.7 };
    });
    return marks.map(function (m) {
      var width = ctx.measureText(m.name).width;
      var sides = [
        [gap, height * 0.35],
        [-gap - width, height * 0.35],
        [-width / 2, -gap],
        [-width / 2, gap + height * 0.8],
        [gap, -gap * 0.6],
        [gap, gap + height * 0.6],
        [-gap - width, -gap * 0.6],
        [-gap - width, gap + height * 0.6],
        [gap, -gap - height * 0.9],
        [gap, gap + height * 1.5],
        [-gap - width, -gap - height * 0.9],
        [-gap - width, gap + height * 1.5],
      ];
      /** @param {number[]} side */
      function rect(side) {
        var left = m.x + side[0];
        var baseline = m.y + side[1];
        return { left: left, top: baseline - height, right: left + width, bottom: baseline + height * 0.25 };
      }
      /** @param {{ left: number, top: number, right: number, bottom: number }} r */
      function free(r) {
        var inside = r.left >= box.left && r.right <= box.left + box.width && r.top >= box.top;
        return (
          inside &&
          r.bottom <= box.top + box.height &&
          taken.every(function (t) {
            return r.right <= t.left || r.left >= t.right || r.bottom <= t.top || r.top >= t.bottom;
          })
        );
      }
      var chosen = sides.find(function (side) {
        return free(rect(side));
      });
      var at = rect(chosen || sides[0]);
      taken.push(at);
      // A label pushed off its marker's sides gets a line to it.
      var far = chosen !== undefined && sides.indexOf(chosen) > 1;
      return {
        name: m.name,
        x: at.left,
        y: at.bottom - height * 0.25,
        leader: far
          ? {
              fromX: m.x,
              fromY: m.y,
              toX: Math.min(Math.max(m.x, at.left), at.right),
              toY: Math.min(Math.max(m.y, at.top), at.bottom),
            }
          : null,
      };
    });
  }

  /**
   * The trade-off scatter: every (contender, scenario) point at (error %, the cost picked in
   * the list), a marker shape and colour per contender, its median drawn bigger with a ring
   * and its name; hovering a point prints its figures.
   * @param {HtmlTradeOff} spec
   */
  function tradeOffSection(spec) {
    var section = el('section', 'trade-off');
    section.id = 'trade-off';
    section.appendChild(el('h2', null, spec.title));
    // One run per contender (distributed's designs, or a compare of one scenario): its
    // median is its one run, so the page speaks of runs, not medians.
    var single = spec.points.length === spec.medians.length;
    section.appendChild(
      el(
        'p',
        'hint',
        single
          ? 'A mark with its name: one contender on ' +
              (spec.points[0] ? spec.points[0].scenario : 'the run') +
              '. Left is more accurate (0 = as the exact oracle).'
          : "A small mark: one run (a contender on one scenario); a big ringed mark with its name: that contender's median over the scenarios. Left is more accurate (0 = as the exact oracle).",
      ),
    );
    /**
     * `, median over the scenarios` or ` on steady-over`: what a hovered mark stands for.
     * @param {HtmlTradeOffPoint} p
     */
    function where(p) {
      if (p.scenario !== 'median') return ' on ' + p.scenario;
      if (!single) return ', median over the scenarios';
      var run = spec.points.find(function (q) {
        return q.contender === p.contender;
      });
      return run ? ' on ' + run.scenario : '';
    }
    /** @type {TradeOffRecord} */
    var record = { chart: null, cost: 0, labels: [], hovered: null };
    window.ratelabTradeOff = record;
    var bar = el('div', 'controls');
    var label = el('label', null, 'cost ');
    var select = el('select');
    spec.costs.forEach(function (cost, i) {
      var option = el('option', null, cost.label);
      option.value = String(i);
      select.appendChild(option);
    });
    label.appendChild(select);
    bar.appendChild(label);
    var better = el('span', 'hint');
    bar.appendChild(better);
    section.appendChild(bar);
    var key = el('div', 'legend-key');
    /** @type {boolean[]} */
    var shown = spec.contenders.map(function () {
      return true;
    });
    spec.contenders.forEach(function (name, i) {
      var mark = contenderMark(name, i);
      var item = el('button', 'mark-key');
      item.type = 'button';
      item.title = 'show or hide ' + name;
      var glyph = el('span', 'glyph', SHAPE_GLYPHS[mark.shape]);
      glyph.style.color = mark.color;
      item.appendChild(glyph);
      item.appendChild(document.createTextNode(name));
      item.addEventListener('click', function () {
        shown[i] = !shown[i];
        item.classList.toggle('off', !shown[i]);
        if (record.chart) record.chart.setSeries(i + 1, { show: shown[i] });
      });
      key.appendChild(item);
    });
    section.appendChild(key);
    var box = el('div', 'chart scatter');
    var tip = el('div', 'tip');
    tip.hidden = true;
    section.appendChild(box);
    var caption = el('p', 'hint', 'Hover a mark for its figures.');
    section.appendChild(caption);
    root.appendChild(section);
    select.addEventListener('change', function () {
      draw(Number(select.value));
    });
    draw(0);

    /** @param {number} costIndex */
    function draw(costIndex) {
      if (record.chart) record.chart.destroy();
      box.textContent = '';
      tip.hidden = true;
      record.cost = costIndex;
      record.hovered = null;
      var cost = spec.costs[costIndex];
      better.textContent =
        cost.better === 'lower'
          ? 'Down and left is better: cheaper and more accurate.'
          : 'Up and left is better: faster and more accurate.';
      /** @param {HtmlTradeOffPoint} p */
      function has(p) {
        var y = p.costs[costIndex];
        return y !== null && y !== undefined && (!cost.log || y > 0);
      }
      var groups = spec.contenders.map(function (name) {
        return {
          points: spec.points.filter(function (p) {
            return p.contender === name && has(p);
          }),
          median: spec.medians.find(function (p) {
            return p.contender === name && has(p);
          }),
        };
      });
      var all = spec.points.concat(spec.medians).filter(has);
      var xs = all.map(function (p) {
        return p.x;
      });
      var ys = all.map(function (p) {
        return /** @type {number} */ (p.costs[costIndex]);
      });
      var xMax = Math.max(1, Math.max.apply(null, xs));
      var yMin = Math.min.apply(null, ys);
      var yMax = Math.max.apply(null, ys);
      var ratio = window.devicePixelRatio || 1;
      var r = 4.5 * ratio;
      var big = 8 * ratio;

      /**
       * The contender's points, then its median bigger and ringed (a uPlot path builder that draws them itself).
       * @type {uPlot.Series.PathBuilder}
       */
      function markers(u, seriesIdx) {
        var i = seriesIdx - 1;
        var group = groups[i];
        var mark = contenderMark(spec.contenders[i], i);
        var small = new Path2D();
        group.points.forEach(function (p) {
          markerPath(
            small,
            mark.shape,
            u.valToPos(p.x, 'x', true),
            u.valToPos(/** @type {number} */ (p.costs[costIndex]), 'y', true),
            r,
          );
        });
        u.ctx.save();
        u.ctx.globalAlpha = 0.75;
        u.ctx.fillStyle = mark.color;
        u.ctx.fill(small);
        u.ctx.restore();
        if (group.median) {
          var median = new Path2D();
          var mx = u.valToPos(group.median.x, 'x', true);
          var my = u.valToPos(/** @type {number} */ (group.median.costs[costIndex]), 'y', true);
          markerPath(median, mark.shape, mx, my, big);
          u.ctx.save();
          u.ctx.fillStyle = mark.color;
          u.ctx.strokeStyle = '#1b1b1b';
          u.ctx.lineWidth = 1.5 * ratio;
          u.ctx.fill(median);
          u.ctx.stroke(median);
          u.ctx.restore();
        }
        return null;
      }

      /** The medians' names, after every series so no marker covers one. @param {uPlot} u */
      function labels(u) {
        u.ctx.save();
        u.ctx.font = '600 ' + 13 * ratio + 'px system-ui, sans-serif';
        u.ctx.textAlign = 'left';
        u.ctx.textBaseline = 'alphabetic';
        /** @type {{ name: string, x: number, y: number }[]} */
        var marks = [];
        groups.forEach(function (group, i) {
          if (!group.median || !u.series[i + 1].show) return;
          marks.push({
            name: spec.contenders[i],
            x: u.valToPos(group.median.x, 'x', true),
            y: u.valToPos(/** @type {number} */ (group.median.costs[costIndex]), 'y', true),
          });
        });
        // Medians on (almost) the same spot share one label, `a = b`, as the terminal charts write it.
        /** @type {{ name: string, x: number, y: number, names: string[] }[]} */
        var spots = [];
        marks.forEach(function (m) {
          var same = spots.find(function (spot) {
            return Math.hypot(spot.x - m.x, spot.y - m.y) <= 3 * ratio;
          });
          if (same) {
            same.names.push(m.name);
            same.name = same.names.join(' = ');
          } else spots.push({ name: m.name, x: m.x, y: m.y, names: [m.name] });
        });
        record.labels = [];
        placeLabels(u.ctx, spots, u.bbox, big + 4 * ratio, 13 * ratio).forEach(function (l, i) {
          if (l.leader) {
            u.ctx.beginPath();
            u.ctx.lineWidth = ratio;
            u.ctx.strokeStyle = '#777777';
            u.ctx.moveTo(l.leader.fromX, l.leader.fromY);
            u.ctx.lineTo(l.leader.toX, l.leader.toY);
            u.ctx.stroke();
          }
          u.ctx.lineWidth = 4 * ratio;
          u.ctx.strokeStyle = 'rgba(255,255,255,0.92)';
          u.ctx.strokeText(l.name, l.x, l.y);
          u.ctx.fillStyle = '#1b1b1b';
          u.ctx.fillText(l.name, l.x, l.y);
          spots[i].names.forEach(function (name) {
            record.labels.push({ contender: name, text: l.name, x: l.x, y: l.y });
          });
        });
        u.ctx.restore();
      }

      /** The point nearest the cursor (within 14 px), its figures in the tip. @param {uPlot} u */
      function hover(u) {
        var left = u.cursor.left;
        var top = u.cursor.top;
        /** @type {{ p: HtmlTradeOffPoint, x: number, y: number, d: number } | null} */
        var best = null;
        // The medians first: a point under its median (the same figures) leaves the median's figures shown.
        var shownGroups = groups.filter(function (group, i) {
          return u.series[i + 1].show;
        });
        var candidates = shownGroups
          .flatMap(function (group) {
            return group.median ? [group.median] : [];
          })
          .concat(
            shownGroups.flatMap(function (group) {
              return group.points;
            }),
          );
        if (left !== undefined && top !== undefined && left >= 0) {
          candidates.forEach(function (p) {
            var x = u.valToPos(p.x, 'x');
            var y = u.valToPos(/** @type {number} */ (p.costs[costIndex]), 'y');
            var d = Math.hypot(x - /** @type {number} */ (left), y - /** @type {number} */ (top));
            if (d <= 14 && (!best || d < best.d)) best = { p: p, x: x, y: y, d: d };
          });
        }
        if (!best) {
          tip.hidden = true;
          record.hovered = null;
          return;
        }
        var hit = /** @type {{ p: HtmlTradeOffPoint, x: number, y: number, d: number }} */ (best);
        var text =
          hit.p.contender +
          where(hit.p) +
          ': error ' +
          formatFigure(hit.p.x) +
          ' %, ' +
          cost.label.replace(/ \(.*\)$/, '') +
          ' ' +
          formatFigure(/** @type {number} */ (hit.p.costs[costIndex])) +
          ' ' +
          cost.unit;
        tip.textContent = text;
        tip.hidden = false;
        var width = u.over.clientWidth;
        tip.style.left = Math.min(u.over.offsetLeft + hit.x + 12, u.over.offsetLeft + width - 260) + 'px';
        tip.style.top = u.over.offsetTop + hit.y + 12 + 'px';
        record.hovered = text;
      }

      /** @type {uPlot.Options} */
      var options = {
        mode: 2,
        width: chartWidth(),
        height: 440,
        padding: [16, 24, 8, 0],
        legend: { show: false },
        cursor: { x: false, y: false, drag: { x: false, y: false }, points: { show: false } },
        scales: {
          x: {
            time: false,
            auto: false,
            range: function () {
              return [-xMax * 0.04, xMax * 1.08];
            },
          },
          y: cost.log
            ? {
                distr: 3,
                log: 10,
                range: function () {
                  return [
                    Math.pow(10, Math.floor(Math.log10(yMin / 1.3))),
                    Math.pow(10, Math.ceil(Math.log10(yMax * 1.3))),
                  ];
                },
              }
            : {
                range: function () {
                  return [0, yMax * 1.12];
                },
              },
        },
        axes: [
          {
            label: spec.xLabel,
            labelSize: AXIS_LABEL_SIZE,
            values: function (u, vals) {
              return vals.map(function (v) {
                return v < 0 ? '' : formatFigure(v) + ' %';
              });
            },
          },
          {
            label: cost.label + (cost.log ? ', log scale' : ''),
            size: AXIS_SIZE,
            labelSize: AXIS_LABEL_SIZE,
            values: function (u, vals) {
              return vals.map(function (v) {
                if (!cost.log) return formatFigure(v);
                // Decades and their 2 and 5 only, so a log axis stays readable.
                var lead = v / Math.pow(10, Math.floor(Math.log10(v) + EPSILON));
                return Math.abs(lead - 1) < 1e-6 || Math.abs(lead - 2) < 1e-6 || Math.abs(lead - 5) < 1e-6
                  ? formatFigure(v)
                  : '';
              });
            },
          },
        ],
        hooks: { draw: [labels], setCursor: [hover] },
        series: /** @type {uPlot.Series[]} */ ([{}]).concat(
          spec.contenders.map(function (name, i) {
            return {
              label: name,
              stroke: contenderMark(name, i).color,
              show: shown[i],
              paths: markers,
              points: { show: false },
            };
          }),
        ),
      };
      var data = /** @type {unknown[]} */ ([null]).concat(
        groups.map(function (group) {
          var pts = group.points.concat(group.median ? [group.median] : []);
          return [
            pts.map(function (p) {
              return p.x;
            }),
            pts.map(function (p) {
              return p.costs[costIndex];
            }),
          ];
        }),
      );
      // uPlot's faceted mode (2) takes [null, [xs, ys] per series]; its types know only aligned data.
      record.chart = new uPlot(options, /** @type {uPlot.AlignedData} */ (/** @type {unknown} */ (data)), box);
      box.appendChild(tip);
    }
    return record;
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
            view.label.replace(/^(worst )?key /, 'key ').replace(/ \(.* limit\)$/, '') +
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
    // Open on the worst window, where a strip's cells are wide enough to read; 'whole run' shows everything.
    var around = worstSpan(record, scenario.windowMs);
    if (around) record.timeline.setScale('x', around);
  }

  /**
   * The x range (s) of a view's worst window with one window either side, within the run;
   * null when the view has none.
   * @param {ChartRecord} record
   * @param {number} windowMs
   * @returns {{ min: number, max: number } | null}
   */
  function worstSpan(record, windowMs) {
    if (!record.worst || !record.full) return null;
    var w = seconds(windowMs);
    return {
      min: Math.max(record.full.min, seconds(record.worst.fromMs) - w),
      max: Math.min(record.full.max, seconds(record.worst.toMs) + w),
    };
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
      var around = worstSpan(record, scenario.windowMs);
      if (around) setX(around.min, around.max);
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
    var figures = el('div', 'figures');
    figures.appendChild(table(scenario.table));
    if (scenario.bars && scenario.bars.length > 0) figures.appendChild(barCharts(scenario.bars, data.matrix.columns));
    section.appendChild(figures);
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
  if (data.tradeOff) tradeOffSection(data.tradeOff);
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
      var scatter = window.ratelabTradeOff && window.ratelabTradeOff.chart;
      if (scatter) scatter.setSize({ width: chartWidth(), height: scatter.height });
    }, 100);
  });
  /** Milliseconds from the start of navigation to every chart drawn, and of them this script's (docs/report.md quotes both). */
  window.ratelabRenderMs = performance.now();
  window.ratelabScriptMs = window.ratelabRenderMs - started;
  document.body.setAttribute('data-ready', 'true');
})();
