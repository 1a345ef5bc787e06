// The page script of `ratelab playground` (inlined by src/report/html/playground-html.ts after
// uPlot, page-kit.browser.js and the core, which an inline module script put on
// globalThis.ratelab): the five limiters of the real core and an exact sliding-log oracle,
// deciding one key's requests on one shared clock that starts at 0 when the page opens. Every
// view is drawn from what the limiters answered (Decision) and what they hold
// (limiter.inspect). Plain browser JavaScript, no build step; texts go into the DOM as text
// only. Type checked by tsc -p tsconfig.browser.json. What each view means: docs/lab.md.
// @ts-check
/// <reference types="uplot" />
/** @typedef {import('./playground-html.js').PlaygroundData} PlaygroundData */
/** @typedef {import('./playground-html.js').PlaygroundPreset} PlaygroundPreset */
/** @typedef {import('../../core/decision.js').Decision} Decision */
/** @typedef {import('../../algorithms/meter.js').KeyState} KeyState */
/** @typedef {{ limit: number, windowMs: number, burst: number | null }} PagePolicy */
/** @typedef {{ t: number, cost: number }} PageEvent */
/** @typedef {{ t: number, cost: number, decisions: Decision[], oracle: boolean }} PageResult */
(function () {
  'use strict';

  var core = window.ratelab;
  /** @type {PlaygroundData} */
  var data = JSON.parse(
    /** @type {string} */ (/** @type {HTMLElement} */ (document.getElementById('playground-data')).textContent),
  );
  var root = /** @type {HTMLElement} */ (document.getElementById('playground'));
  var el = window.ratelabKit.el;
  /** @type {string[]} */
  var ALGS = data.algorithms.slice();
  var KEY = 'user';
  var COLOURS = ['#0072B2', '#E69F00', '#D55E00', '#009E73', '#CC79A7'];
  var DASHES = [[], [8, 4], [], [3, 3], [12, 4, 3, 4]];
  /** The outcomes of a request against the oracle, in legend order. */
  var KINDS = ['admitted', 'denied', 'falsely admitted', 'falsely denied'];
  var KIND_LETTER = ['A', 'D', 'FA', 'FD'];

  // ---- the session: a policy and a recorded sequence, decided on one clock ----

  var session = {
    /** @type {PagePolicy} */
    policy: { limit: 10, windowMs: 1000, burst: null },
    /** @type {PageEvent[]} every request, in time order (times whole ms of the session) */
    events: [],
    /** @type {PageEvent[]} requests planned for later (real time: the edge action), in time order */
    pending: [],
    /** the session's time, ms */
    now: 0,
    /** the furthest time reached, ms: the rewind slider's end */
    horizon: 0,
    /** @type {'real' | 'step'} */
    mode: 'real',
    /** performance.now() at session time 0 (real time) */
    base: performance.now(),
    /** @type {Record<string, boolean>} */
    shown: {},
    cost: 1,
  };
  ALGS.forEach(function (a) {
    session.shown[a] = true;
  });

  /**
   * The decisions so far: a fresh limiter per algorithm on a shared ManualClock, the oracle's
   * log, one result per applied event. Rebuilt (the sequence replayed) when the policy changes
   * or the clock goes back.
   */
  var engine = freshEngine();

  function freshEngine() {
    var clock = new core.ManualClock(0);
    var policy = corePolicy(session.policy);
    /** @type {import('../../memory/limiter.js').RateLimiter[]} */
    var limiters = ALGS.map(function (a) {
      return core.createLimiter(/** @type {import('../../core/policy.js').Algorithm} */ (a), policy, { clock: clock });
    });
    return {
      clock: clock,
      limiters: limiters,
      /** @type {PageResult[]} */
      results: [],
      /** the oracle's admitted units: times and costs, the window's start index and sum */
      oracleT: /** @type {number[]} */ ([]),
      oracleC: /** @type {number[]} */ ([]),
      oracleHead: 0,
      oracleSum: 0,
      at: 0,
    };
  }

  /** @param {PagePolicy} p */
  function corePolicy(p) {
    return p.burst === null
      ? { limit: p.limit, windowMs: p.windowMs }
      : { limit: p.limit, windowMs: p.windowMs, burst: p.burst };
  }

  /**
   * The exact answer: admitted when the units the oracle itself admitted in (t - W, t], plus
   * the cost, stay within the limit (the lab's oracle, src/metrics/oracle.ts).
   * @param {number} t
   * @param {number} cost
   */
  function oracleDecide(t, cost) {
    var e = engine;
    var horizon = t - session.policy.windowMs;
    while (e.oracleHead < e.oracleT.length && e.oracleT[e.oracleHead] <= horizon) {
      e.oracleSum -= e.oracleC[e.oracleHead];
      e.oracleHead++;
    }
    if (e.oracleSum + cost > session.policy.limit) return false;
    e.oracleT.push(t);
    e.oracleC.push(cost);
    e.oracleSum += cost;
    return true;
  }

  /** @param {PageEvent} ev */
  function applyEvent(ev) {
    engine.clock.set(ev.t);
    engine.at = ev.t;
    var decisions = engine.limiters.map(function (l) {
      return l.consume(KEY, ev.cost);
    });
    engine.results.push({ t: ev.t, cost: ev.cost, decisions: decisions, oracle: oracleDecide(ev.t, ev.cost) });
  }

  /** Brings the decisions to session time `t`: replays from 0 when `t` is before what was decided. */
  function decideTo(/** @type {number} */ t) {
    var last = engine.results.length > 0 ? engine.results[engine.results.length - 1].t : 0;
    if (t < engine.at || t < last || engine.results.length > session.events.length) engine = freshEngine();
    while (engine.results.length < session.events.length && session.events[engine.results.length].t <= t)
      applyEvent(session.events[engine.results.length]);
    engine.clock.set(t);
    engine.at = t;
  }

  /** The results up to now (events after now, kept after a rewind, are not decided yet). */
  function visibleResults() {
    return engine.results;
  }

  /** Session time in real-time mode. */
  function realNow() {
    return Math.max(session.now, Math.floor(performance.now() - session.base));
  }

  /** Records `count` requests of `cost` at session time `t` (>= now), dropping any recorded after now (a rewound future). */
  function record(/** @type {number} */ t, /** @type {number} */ count, /** @type {number} */ cost) {
    var keep = session.events.length;
    while (keep > 0 && session.events[keep - 1].t > session.now) keep--;
    if (keep < session.events.length) {
      session.events.length = keep;
      if (engine.results.length > keep) engine = freshEngine();
    }
    for (var i = 0; i < count; i++) session.events.push({ t: t, cost: cost });
  }

  /** Sends `count` requests now. */
  function send(/** @type {number} */ count) {
    if (session.mode === 'real') session.now = realNow();
    record(session.now, count, session.cost);
    changed();
  }

  /** Moves the clock to `t` (step mode). */
  function moveTo(/** @type {number} */ t) {
    session.now = Math.max(0, Math.floor(t));
    changed();
  }

  function nextEdge() {
    var w = session.policy.windowMs;
    return (Math.floor(session.now / w) + 1) * w;
  }

  /** N just before (at edge - 1 ms) and N just after (at the edge) the next window edge. */
  function edgeBurst(/** @type {number} */ n) {
    if (session.mode === 'real') session.now = realNow();
    var edge = nextEdge();
    if (session.mode === 'step') {
      if (edge - 1 > session.now) session.now = edge - 1;
      record(session.now, n, session.cost);
      session.now = edge;
      record(edge, n, session.cost);
    } else {
      for (var i = 0; i < n; i++) session.pending.push({ t: Math.max(edge - 1, session.now), cost: session.cost });
      for (var j = 0; j < n; j++) session.pending.push({ t: edge, cost: session.cost });
    }
    changed();
  }

  // ---- the URL fragment: policy, algorithms shown and the recorded sequence ----

  function encodeFragment() {
    var p = session.policy;
    var parts = ['v1', 'limit=' + p.limit, 'window=' + p.windowMs];
    if (p.burst !== null) parts.push('burst=' + p.burst);
    var hidden = ALGS.filter(function (a) {
      return !session.shown[a];
    });
    if (hidden.length > 0) parts.push('hide=' + hidden.join(','));
    var prev = 0;
    var seq = session.events.map(function (ev) {
      var text = (ev.t - prev).toString(36) + (ev.cost === 1 ? '' : '*' + ev.cost.toString(36));
      prev = ev.t;
      return text;
    });
    parts.push('seq=' + seq.join('.'));
    parts.push('t=' + session.now);
    return parts.join('&');
  }

  /**
   * The session a fragment holds, or why it holds none (a one-line notice).
   * @param {string} fragment without the `#`
   * @returns {{ policy: PagePolicy, events: PageEvent[], hidden: string[], now: number } | { error: string }}
   */
  function decodeFragment(fragment) {
    var fields = fragment.split('&');
    if (fields[0] !== 'v1') return { error: 'not a playground session (expected v1&...)' };
    /** @type {Record<string, string>} */
    var map = {};
    for (var i = 1; i < fields.length; i++) {
      var eq = fields[i].indexOf('=');
      if (eq < 0) return { error: 'field ' + JSON.stringify(fields[i].slice(0, 20)) + ' has no value' };
      map[fields[i].slice(0, eq)] = fields[i].slice(eq + 1);
    }
    var whole = /^[0-9]+$/;
    if (!whole.test(map.limit || '')) return { error: 'limit: expected a whole number' };
    if (!whole.test(map.window || '')) return { error: 'window: expected a whole number of ms' };
    if (map.burst !== undefined && !whole.test(map.burst)) return { error: 'burst: expected a whole number' };
    /** @type {PagePolicy} */
    var policy = {
      limit: Number(map.limit),
      windowMs: Number(map.window),
      burst: map.burst === undefined ? null : Number(map.burst),
    };
    try {
      core.checkPolicy(corePolicy(policy), 'token-bucket');
    } catch (error) {
      return { error: String(/** @type {Error} */ (error).message) };
    }
    /** @type {PageEvent[]} */
    var events = [];
    var t = 0;
    var seq = map.seq === undefined || map.seq === '' ? [] : map.seq.split('.');
    for (var k = 0; k < seq.length; k++) {
      var m = /^([0-9a-z]+)(?:\*([0-9a-z]+))?$/.exec(seq[k]);
      if (!m) return { error: 'seq: request ' + (k + 1) + ' is not delta[*cost] in base 36' };
      t += parseInt(m[1], 36);
      var cost = m[2] === undefined ? 1 : parseInt(m[2], 36);
      if (!Number.isSafeInteger(t) || !Number.isSafeInteger(cost) || cost < 1)
        return { error: 'seq: request ' + (k + 1) + ' has a bad time or cost' };
      events.push({ t: t, cost: cost });
    }
    var hidden = map.hide ? map.hide.split(',') : [];
    for (var h = 0; h < hidden.length; h++)
      if (ALGS.indexOf(hidden[h]) < 0) return { error: 'hide: unknown algorithm ' + JSON.stringify(hidden[h]) };
    var now = map.t === undefined ? t : Number(map.t);
    if (!whole.test(String(now))) return { error: 't: expected a whole number of ms' };
    return { policy: policy, events: events, hidden: hidden, now: Math.max(now, 0) };
  }

  var fragmentDue = false;
  function writeFragment() {
    fragmentDue = false;
    var text = '#' + encodeFragment();
    try {
      history.replaceState(null, '', text);
    } catch {
      location.replace(text);
    }
  }

  /** The session as the CSV trace `ratelab compare --trace` replays (time_ms,key,cost). */
  function traceCsv() {
    return (
      'time_ms,key,cost\n' +
      session.events
        .map(function (ev) {
          return ev.t + ',' + KEY + ',' + ev.cost;
        })
        .join('\n') +
      (session.events.length > 0 ? '\n' : '')
    );
  }

  // ---- the page ----

  var notice = el('p', 'notice');
  notice.hidden = true;
  notice.setAttribute('role', 'status');
  root.appendChild(
    el(
      'p',
      'muted',
      'The real ratelab core (the code import "ratelab" runs) deciding one key\u2019s requests: five limiters and the exact sliding-log oracle on one clock, started at 0 when the page opened.',
    ),
  );
  root.appendChild(notice);
  var layout = el('div', 'layout');
  root.appendChild(layout);
  var side = el('div');
  var mainCol = el('div');
  layout.appendChild(side);
  layout.appendChild(mainCol);

  /**
   * @param {string} label
   * @param {() => void} action
   * @param {string} [id]
   * @param {string} [keyHint]
   */
  function button(label, action, id, keyHint) {
    var b = el('button', null, label);
    b.type = 'button';
    if (id) b.id = id;
    if (keyHint) {
      b.setAttribute('aria-keyshortcuts', keyHint);
      b.title = 'key: ' + keyHint;
    }
    b.addEventListener('click', action);
    return b;
  }

  /**
   * @param {string} label
   * @param {string} id
   * @param {number | null} value
   * @param {number} min
   */
  function numberInput(label, id, value, min) {
    var wrap = el('label', null, label + ' ');
    var input = el('input');
    input.type = 'number';
    input.id = id;
    input.min = String(min);
    input.step = '1';
    input.value = value === null ? '' : String(value);
    wrap.appendChild(input);
    return { wrap: wrap, input: input };
  }

  /** @param {string} title */
  function panel(title) {
    var p = el('section', 'panel');
    p.appendChild(el('h2', null, title));
    return p;
  }

  // Clock
  var clockPanel = panel('Clock');
  var clockText = el('div', 'clock');
  clockText.id = 'clock';
  clockText.setAttribute('aria-live', 'off');
  var modeRow = el('div', 'row');
  var realButton = button(
    'Real time',
    function () {
      setMode('real');
    },
    'mode-real',
  );
  var stepButton = button(
    'Step (pause)',
    function () {
      setMode('step');
    },
    'mode-step',
    'P',
  );
  modeRow.appendChild(realButton);
  modeRow.appendChild(stepButton);
  var stepRow = el('div', 'row');
  [1, 10, 100].forEach(function (ms) {
    stepRow.appendChild(
      button(
        '+' + ms + ' ms',
        function () {
          setMode('step');
          moveTo(session.now + ms);
        },
        'step-' + ms,
        ms === 1 ? 'ArrowRight' : ms === 10 ? 'Shift+ArrowRight' : 'Control+ArrowRight',
      ),
    );
  });
  stepRow.appendChild(
    button(
      'next edge',
      function () {
        setMode('step');
        moveTo(nextEdge());
      },
      'step-edge',
      'E',
    ),
  );
  var rewindLabel = el('label', null, 'rewind ');
  var rewind = el('input');
  rewind.type = 'range';
  rewind.id = 'rewind';
  rewind.min = '0';
  rewind.step = '1';
  rewind.setAttribute('aria-label', 'session time, ms (rewind replays the recorded sequence)');
  rewind.addEventListener('input', function () {
    setMode('step');
    moveTo(Number(rewind.value));
  });
  rewindLabel.appendChild(rewind);
  clockPanel.appendChild(clockText);
  clockPanel.appendChild(modeRow);
  clockPanel.appendChild(stepRow);
  clockPanel.appendChild(rewindLabel);
  side.appendChild(clockPanel);

  // Send
  var sendPanel = panel('Send');
  var costIn = numberInput('cost', 'cost', 1, 1);
  var rateIn = numberInput('rate /s', 'rate', 20, 1);
  var burstIn = numberInput('N', 'burst-n', 10, 1);
  var r1 = el('div', 'row');
  r1.appendChild(
    button(
      'Send one',
      function () {
        send(1);
      },
      'send',
      'Space',
    ),
  );
  r1.appendChild(costIn.wrap);
  var r2 = el('div', 'row');
  var holdButton = button('Hold to stream', function () {}, 'stream', 'S');
  r2.appendChild(holdButton);
  r2.appendChild(rateIn.wrap);
  var r3 = el('div', 'row');
  r3.appendChild(
    button(
      'Burst N',
      function () {
        send(readWhole(burstIn.input, 10));
      },
      'burst',
      'B',
    ),
  );
  r3.appendChild(burstIn.wrap);
  r3.appendChild(
    button(
      'N before + N after next edge',
      function () {
        edgeBurst(readWhole(burstIn.input, 10));
      },
      'edge',
      'X',
    ),
  );
  sendPanel.appendChild(r1);
  sendPanel.appendChild(r2);
  sendPanel.appendChild(r3);
  side.appendChild(sendPanel);
  costIn.input.addEventListener('change', function () {
    session.cost = readWhole(costIn.input, 1);
  });

  /** @param {HTMLInputElement} input @param {number} fallback */
  function readWhole(input, fallback) {
    var v = Math.floor(Number(input.value));
    return Number.isFinite(v) && v >= 1 ? v : fallback;
  }

  // Streaming: while the button (or S) is held, one request per 1/rate s (step mode: the clock moves that much per request).
  /** @type {number | undefined} */
  var streamTimer;
  function startStream() {
    if (streamTimer !== undefined) return;
    holdButton.setAttribute('aria-pressed', 'true');
    var gap = 1000 / readWhole(rateIn.input, 20);
    var tick = function () {
      if (session.mode === 'step') {
        session.now = Math.round(session.now + gap);
        record(session.now, 1, session.cost);
        changed();
      } else send(1);
    };
    tick();
    streamTimer = window.setInterval(tick, Math.max(gap, 4));
  }
  function stopStream() {
    if (streamTimer === undefined) return;
    window.clearInterval(streamTimer);
    streamTimer = undefined;
    holdButton.setAttribute('aria-pressed', 'false');
  }
  holdButton.addEventListener('pointerdown', startStream);
  holdButton.addEventListener('pointerup', stopStream);
  holdButton.addEventListener('pointerleave', stopStream);

  // Policy and algorithms
  var policyPanel = panel('Policy (one for all)');
  var limitIn = numberInput('limit', 'limit', 10, 1);
  var windowIn = numberInput('window ms', 'window', 1000, 1);
  var burstPolicyIn = numberInput('burst', 'burst', null, 1);
  burstPolicyIn.input.placeholder = '= limit';
  var pr = el('div', 'row');
  pr.appendChild(limitIn.wrap);
  pr.appendChild(windowIn.wrap);
  pr.appendChild(burstPolicyIn.wrap);
  policyPanel.appendChild(pr);
  [limitIn.input, windowIn.input, burstPolicyIn.input].forEach(function (input) {
    input.addEventListener('change', readPolicy);
  });
  var algRow = el('div', 'row');
  /** @type {Record<string, HTMLInputElement>} */
  var algBoxes = {};
  ALGS.forEach(function (a) {
    var label = el('label', null);
    var box = el('input');
    box.type = 'checkbox';
    box.checked = true;
    box.id = 'show-' + a;
    box.addEventListener('change', function () {
      session.shown[a] = box.checked;
      changed();
    });
    algBoxes[a] = box;
    label.appendChild(box);
    label.appendChild(document.createTextNode(a));
    algRow.appendChild(label);
  });
  policyPanel.appendChild(algRow);
  side.appendChild(policyPanel);

  function readPolicy() {
    var burstText = burstPolicyIn.input.value.trim();
    /** @type {PagePolicy} */
    var next = {
      limit: readWhole(limitIn.input, session.policy.limit),
      windowMs: readWhole(windowIn.input, session.policy.windowMs),
      burst: burstText === '' ? null : readWhole(burstPolicyIn.input, session.policy.limit),
    };
    try {
      core.checkPolicy(corePolicy(next), 'token-bucket');
    } catch (error) {
      showNotice(String(/** @type {Error} */ (error).message));
      return;
    }
    setPolicy(next);
  }

  /** @param {PagePolicy} p */
  function setPolicy(p) {
    session.policy = p;
    limitIn.input.value = String(p.limit);
    windowIn.input.value = String(p.windowMs);
    burstPolicyIn.input.value = p.burst === null ? '' : String(p.burst);
    engine = freshEngine();
    changed();
  }

  // Presets and sharing
  var presetPanel = panel('Presets and sharing');
  var presetRow = el('div', 'row');
  var presetSelect = el('select');
  presetSelect.id = 'preset';
  presetSelect.setAttribute('aria-label', 'built-in scenario');
  data.presets.forEach(function (p, i) {
    var o = el('option', null, p.name);
    o.value = String(i);
    presetSelect.appendChild(o);
  });
  presetRow.appendChild(presetSelect);
  presetRow.appendChild(
    button(
      'Load preset',
      function () {
        loadPreset(data.presets[Number(presetSelect.value)]);
      },
      'load-preset',
    ),
  );
  presetRow.appendChild(
    button(
      'Play from 0',
      function () {
        // The recorded sequence replayed on the page's clock: back to 0, then real time decides
        // each request as its time comes (a request sent meanwhile drops those after it).
        session.now = 0;
        session.mode = 'step';
        setMode('real');
      },
      'play',
    ),
  );
  var presetNote = el('p', 'muted');
  presetNote.id = 'preset-note';
  var shareRow = el('div', 'row');
  var traceBox = el('textarea');
  traceBox.id = 'trace';
  traceBox.readOnly = true;
  traceBox.rows = 3;
  traceBox.style.width = '100%';
  traceBox.hidden = true;
  traceBox.setAttribute('aria-label', 'the session as a trace for ratelab compare --trace');
  shareRow.appendChild(
    button(
      'Copy as trace',
      function () {
        traceBox.value = traceCsv();
        traceBox.hidden = false;
        traceBox.select();
        var clip = navigator.clipboard;
        if (clip)
          clip.writeText(traceBox.value).then(
            function () {
              showNotice('Copied: replay it with ratelab compare --trace FILE ' + policyFlags() + '.');
            },
            function () {
              showNotice(
                'Select the text below and copy it; replay with ratelab compare --trace FILE ' + policyFlags() + '.',
              );
            },
          );
      },
      'copy-trace',
    ),
  );
  shareRow.appendChild(
    button(
      'New session',
      function () {
        newSession();
      },
      'new-session',
      'N',
    ),
  );
  presetPanel.appendChild(presetRow);
  presetPanel.appendChild(presetNote);
  presetPanel.appendChild(shareRow);
  presetPanel.appendChild(traceBox);
  presetPanel.appendChild(
    el('p', 'muted', 'The link (URL fragment) holds the policy and every request: share it to reopen this session.'),
  );
  side.appendChild(presetPanel);

  function policyFlags() {
    var p = session.policy;
    return '--limit ' + p.limit + ' --window ' + p.windowMs + 'ms' + (p.burst === null ? '' : ' --burst ' + p.burst);
  }

  /** @param {PlaygroundPreset} preset */
  function loadPreset(preset) {
    notice.hidden = true;
    stopStream();
    session.pending = [];
    session.events = preset.arrivals.map(function (a) {
      return { t: a[0], cost: a[1] };
    });
    session.mode = 'step';
    var last = session.events.length > 0 ? session.events[session.events.length - 1].t : 0;
    session.now = last;
    presetNote.textContent =
      preset.description +
      ' (key ' +
      preset.key +
      ', ' +
      preset.arrivals.length +
      ' requests' +
      (preset.truncated ? ', the first ones only' : '') +
      ')';
    setPolicy({ limit: preset.policy.limit, windowMs: preset.policy.windowMs, burst: preset.policy.burst ?? null });
  }

  function newSession() {
    notice.hidden = true;
    stopStream();
    session.events = [];
    session.pending = [];
    session.now = 0;
    session.horizon = 0;
    session.base = performance.now();
    engine = freshEngine();
    changed();
  }

  /** @param {'real' | 'step'} mode */
  function setMode(mode) {
    if (mode === session.mode) return;
    if (mode === 'step') session.now = realNow();
    else session.base = performance.now() - session.now;
    session.mode = mode;
    changed();
  }

  /** @param {string} text */
  function showNotice(text) {
    notice.textContent = text;
    notice.hidden = false;
  }

  // ---- lanes: per algorithm a strip, counts and its state ----

  var legend = el('div', 'legend-key');
  KINDS.forEach(function (kind, i) {
    var item = el('span');
    var swatch = el('canvas');
    swatch.width = 22;
    swatch.height = 12;
    paintCell(/** @type {CanvasRenderingContext2D} */ (swatch.getContext('2d')), 0, 0, 22, 12, i);
    item.appendChild(swatch);
    item.appendChild(document.createTextNode(kind + (i >= 2 ? ' (vs the exact oracle)' : '')));
    legend.appendChild(item);
  });
  var windowEdgeKey = el('span', null, '| a fixed window edge between two requests');
  legend.appendChild(windowEdgeKey);
  mainCol.appendChild(legend);

  var chartBox = el('div');
  chartBox.id = 'window-chart';
  mainCol.appendChild(el('h3', null, 'Admitted in the trailing window (t \u2212 W, t], \u00d7 the limit'));
  mainCol.appendChild(chartBox);
  // The chart's lines, named once (its own legend would take two lines at 1280 px).
  var lineKey = el('div', 'legend-key');
  lineKey.id = 'line-key';
  [
    ['limit', '#888'],
    ['exact oracle', '#000'],
  ]
    .concat(
      ALGS.map(function (a, i) {
        return [a, COLOURS[i]];
      }),
    )
    .forEach(function (entry) {
      var item = el('span', null, '\u2014 ' + entry[0]);
      item.style.color = entry[1];
      item.style.fontWeight = '600';
      lineKey.appendChild(item);
    });
  mainCol.appendChild(lineKey);

  /** @type {{ alg: string, lane: HTMLElement, strip: HTMLCanvasElement, counts: HTMLElement, state: HTMLElement, cells: PageResult[], first: number }[]} */
  var lanes = ALGS.map(function (a, i) {
    var lane = el('section', 'lane');
    lane.id = 'lane-' + a;
    var head = el('div', 'lane-head');
    var name = el('h3', null, a);
    name.style.color = COLOURS[i];
    var counts = el('span', 'counts');
    head.appendChild(name);
    head.appendChild(counts);
    var strip = el('canvas', 'strip');
    strip.setAttribute('role', 'img');
    strip.setAttribute('aria-label', a + ': request strip');
    var state = el('div', 'state');
    lane.appendChild(head);
    lane.appendChild(strip);
    lane.appendChild(state);
    mainCol.appendChild(lane);
    return { alg: a, lane: lane, strip: strip, counts: counts, state: state, cells: [], first: 0 };
  });

  var detail = el('section', 'panel');
  detail.id = 'decision-detail';
  mainCol.appendChild(detail);
  var tip = el('div', 'tip');
  tip.hidden = true;
  document.body.appendChild(tip);

  var CELL = 12;

  /**
   * One request's cell: colour and pattern both say what happened.
   * @param {CanvasRenderingContext2D} g
   * @param {number} x @param {number} y @param {number} w @param {number} h
   * @param {number} kind index in KINDS
   */
  function paintCell(g, x, y, w, h, kind) {
    var fills = ['#2e7d32', '#c9c9c9', '#e65100', '#1565c0'];
    g.fillStyle = fills[kind];
    g.fillRect(x, y, w, h);
    g.save();
    g.beginPath();
    g.rect(x, y, w, h);
    g.clip();
    g.strokeStyle = kind === 1 ? '#555' : '#fff';
    g.lineWidth = 1.5;
    g.beginPath();
    if (kind === 1) {
      // denied: diagonal hatching
      for (var d = -h; d < w; d += 4) {
        g.moveTo(x + d, y + h);
        g.lineTo(x + d + h, y);
      }
    } else if (kind === 2) {
      // falsely admitted: a cross
      g.moveTo(x + 1, y + 1);
      g.lineTo(x + w - 1, y + h - 1);
      g.moveTo(x + w - 1, y + 1);
      g.lineTo(x + 1, y + h - 1);
    } else if (kind === 3) {
      // falsely denied: horizontal bars
      for (var k = y + 3; k < y + h; k += 4) {
        g.moveTo(x, k);
        g.lineTo(x + w, k);
      }
    }
    g.stroke();
    g.restore();
  }

  /** @param {PageResult} r @param {number} i */
  function kindOf(r, i) {
    var allowed = r.decisions[i].allowed;
    if (allowed === r.oracle) return allowed ? 0 : 1;
    return allowed ? 2 : 3;
  }

  function drawLanes() {
    var results = visibleResults();
    var w = session.policy.windowMs;
    lanes.forEach(function (lane, i) {
      lane.lane.hidden = !session.shown[lane.alg];
      if (lane.lane.hidden) return;
      var width = Math.max(120, lane.strip.clientWidth || 600);
      var ratio = window.devicePixelRatio || 1;
      lane.strip.width = Math.round(width * ratio);
      lane.strip.height = Math.round(26 * ratio);
      var g = /** @type {CanvasRenderingContext2D} */ (lane.strip.getContext('2d'));
      g.setTransform(ratio, 0, 0, ratio, 0, 0);
      g.clearRect(0, 0, width, 26);
      var fit = Math.floor((width - 2) / CELL);
      var first = Math.max(0, results.length - fit);
      lane.first = first;
      var admitted = 0;
      var falseAdmits = 0;
      var falseDenials = 0;
      for (var k = 0; k < results.length; k++) {
        var kind = kindOf(results[k], i);
        if (kind === 0 || kind === 2) admitted++;
        if (kind === 2) falseAdmits++;
        if (kind === 3) falseDenials++;
        if (k < first) continue;
        var x = 1 + (k - first) * CELL;
        paintCell(g, x, 4, CELL - 2, 18, kind);
        if (k > first && Math.floor(results[k - 1].t / w) !== Math.floor(results[k].t / w)) {
          g.fillStyle = '#000';
          g.fillRect(x - 2, 0, 2, 26);
        }
      }
      lane.counts.textContent =
        admitted +
        ' of ' +
        results.length +
        ' admitted \u00b7 ' +
        falseAdmits +
        ' falsely admitted \u00b7 ' +
        falseDenials +
        ' falsely denied';
      lane.strip.setAttribute('aria-label', lane.alg + ': ' + lane.counts.textContent);
      drawState(lane.state, lane.alg, engine.limiters[i]);
    });
  }

  /**
   * @param {number} t ms
   */
  function fmtTime(t) {
    return t >= 1000 ? (t / 1000).toFixed(3) + ' s' : t + ' ms';
  }
  /** @param {number} v */
  function fmt(v) {
    return Number.isInteger(v) ? String(v) : v.toFixed(2);
  }

  var SVGNS = 'http://www.w3.org/2000/svg';
  /**
   * @param {string} tag
   * @param {Record<string, string | number>} attrs
   */
  function svg(tag, attrs) {
    var node = document.createElementNS(SVGNS, tag);
    Object.keys(attrs).forEach(function (k) {
      node.setAttribute(k, String(attrs[k]));
    });
    return node;
  }

  /**
   * A bar of `value` of `max`, with optional marks (fractions of the width).
   * @param {number} value @param {number} max @param {string} colour
   * @param {{ at: number, label: string }[]} [marks]
   */
  function bar(value, max, colour, marks) {
    var W = 220;
    var s = svg('svg', { width: W, height: 22, viewBox: '0 0 ' + W + ' 22', role: 'img' });
    s.appendChild(svg('rect', { x: 0, y: 4, width: W, height: 14, fill: '#fff', stroke: '#444' }));
    var frac = max > 0 ? Math.max(0, Math.min(value / max, 1)) : 0;
    s.appendChild(svg('rect', { x: 0, y: 4, width: W * frac, height: 14, fill: colour }));
    (marks || []).forEach(function (m) {
      s.appendChild(svg('line', { x1: W * m.at, x2: W * m.at, y1: 0, y2: 22, stroke: '#000', 'stroke-width': 2 }));
    });
    return s;
  }

  /**
   * The algorithm's own state, drawn as what it is (limiter.inspect).
   * @param {HTMLElement} box @param {string} alg
   * @param {import('../../memory/limiter.js').RateLimiter} limiter
   */
  function drawState(box, alg, limiter) {
    box.textContent = '';
    var state = limiter.inspect ? limiter.inspect(KEY) : undefined;
    var p = session.policy;
    var now = engine.at;
    var colour = COLOURS[ALGS.indexOf(alg)];
    var text = el('span');
    box.setAttribute('data-state', state ? JSON.stringify(state) : '');
    if (state === undefined) {
      box.appendChild(text);
      text.textContent = 'no state held: the key starts with a full quota';
      return;
    }
    if (state.algorithm === 'token-bucket') {
      box.appendChild(bar(state.tokens, state.capacity, colour));
      text.textContent =
        'bucket ' +
        fmt(state.tokens) +
        ' of ' +
        state.capacity +
        ' tokens, refilling ' +
        fmt(state.ratePerMs * 1000) +
        ' per s';
    } else if (state.algorithm === 'gcra') {
      // now at the left; the tolerance band [now, now + tau]; the TAT marked.
      var span = state.toleranceMs + state.intervalMs;
      var W = 220;
      var s = svg('svg', { width: W, height: 22, viewBox: '0 0 ' + W + ' 22', role: 'img' });
      s.appendChild(svg('rect', { x: 0, y: 4, width: W, height: 14, fill: '#fff', stroke: '#444' }));
      s.appendChild(svg('rect', { x: 0, y: 4, width: (W * state.toleranceMs) / span, height: 14, fill: '#e8e1f0' }));
      var at = Math.min(1, (state.tat - state.now) / span);
      s.appendChild(svg('line', { x1: W * at, x2: W * at, y1: 0, y2: 22, stroke: colour, 'stroke-width': 3 }));
      box.appendChild(s);
      var ahead = state.tat - state.now;
      text.textContent =
        'TAT \u2212 now = ' +
        fmt(ahead) +
        ' ms ' +
        (ahead <= state.toleranceMs ? '\u2264' : '>') +
        ' tolerance \u03c4 = ' +
        fmt(state.toleranceMs) +
        ' ms (T = ' +
        fmt(state.intervalMs) +
        ' ms): ' +
        (ahead <= state.toleranceMs
          ? 'the next unit is admitted'
          : 'denied for ' + fmt(ahead - state.toleranceMs) + ' ms');
    } else if (state.algorithm === 'sliding-log') {
      var log = state;
      var W2 = 220;
      var s2 = svg('svg', { width: W2, height: 22, viewBox: '0 0 ' + W2 + ' 22', role: 'img' });
      s2.appendChild(svg('rect', { x: 0, y: 4, width: W2, height: 14, fill: '#fff', stroke: '#444' }));
      state.timestamps.forEach(function (ts) {
        var x = Math.min(W2 - 1.5, (W2 * (ts - (log.now - log.windowMs))) / log.windowMs);
        s2.appendChild(svg('line', { x1: x, x2: x, y1: 5, y2: 17, stroke: colour, 'stroke-width': 1.5 }));
      });
      box.appendChild(s2);
      text.textContent =
        state.timestamps.length +
        ' timestamps in (now \u2212 ' +
        fmtTime(state.windowMs) +
        ', now] of ' +
        p.limit +
        ' (' +
        state.timestamps.length * 8 +
        ' B held: 8 B each, growing with the limit)';
    } else if (state.algorithm === 'sliding-counter') {
      box.appendChild(
        bar(state.previous * state.weight + state.current, p.limit, colour, [
          { at: Math.min(1, (state.previous * state.weight) / p.limit), label: 'weighted previous' },
        ]),
      );
      text.textContent =
        'previous ' +
        state.previous +
        ' \u00d7 weight ' +
        state.weight.toFixed(3) +
        ' + current ' +
        state.current +
        ' = ' +
        fmt(state.estimate) +
        ' of ' +
        p.limit;
    } else {
      box.appendChild(
        bar(state.count, p.limit, colour, [{ at: (now - state.windowStart) / p.windowMs, label: 'now' }]),
      );
      text.textContent =
        'count ' +
        state.count +
        ' of ' +
        p.limit +
        ' in [' +
        fmtTime(state.windowStart) +
        ', ' +
        fmtTime(state.windowEnd) +
        '): the boundary resets it in ' +
        (state.windowEnd - now) +
        ' ms';
    }
    box.appendChild(text);
  }

  /** @param {PageResult | undefined} r */
  function decisionTable(r) {
    var t = el('table', 'decisions');
    var head = el('tr');
    ['', 'allowed', 'remaining', 'retryAfterMs', 'resetMs'].forEach(function (c) {
      head.appendChild(el('th', null, c));
    });
    t.appendChild(head);
    if (!r) return t;
    ALGS.forEach(function (a, i) {
      var d = r.decisions[i];
      var tr = el('tr');
      [
        a,
        String(d.allowed) + (d.allowed === r.oracle ? '' : ' \u2260 oracle'),
        d.remaining,
        d.retryAfterMs,
        d.resetMs,
      ].forEach(function (c) {
        tr.appendChild(el('td', null, c));
      });
      t.appendChild(tr);
    });
    var o = el('tr');
    ['exact oracle', String(r.oracle), '', '', ''].forEach(function (c) {
      o.appendChild(el('td', null, c));
    });
    t.appendChild(o);
    return t;
  }

  /** @param {number} index */
  function showDetail(index) {
    var results = visibleResults();
    var r = results[index];
    detail.textContent = '';
    detail.appendChild(
      el(
        'h2',
        null,
        r ? 'Request ' + (index + 1) + ' at ' + fmtTime(r.t) + ', cost ' + r.cost : 'No request yet: press Space',
      ),
    );
    var wrap = el('div', 'scroll');
    wrap.appendChild(decisionTable(r));
    detail.appendChild(wrap);
  }

  /** @type {number | null} */
  var hovered = null;
  lanes.forEach(function (lane) {
    lane.strip.addEventListener('mousemove', function (event) {
      var rect = lane.strip.getBoundingClientRect();
      var index = lane.first + Math.floor((event.clientX - rect.left - 1) / CELL);
      var r = visibleResults()[index];
      if (!r) {
        tip.hidden = true;
        return;
      }
      hovered = index;
      tip.textContent = '';
      tip.appendChild(el('strong', null, 'Request ' + (index + 1) + ' at ' + fmtTime(r.t) + ', cost ' + r.cost));
      tip.appendChild(decisionTable(r));
      tip.hidden = false;
      tip.style.left = Math.min(event.clientX + 12, window.innerWidth - 350) + 'px';
      tip.style.top = event.clientY + 16 + 'px';
      showDetail(index);
    });
    lane.strip.addEventListener('mouseleave', function () {
      tip.hidden = true;
      hovered = null;
    });
  });

  // ---- the trailing-window chart: one shared y axis, admitted units in (t - W, t] over the limit ----

  /** @type {uPlot | null} */
  var chart = null;
  /** @type {string} */
  var chartShape = '';

  function chartData() {
    var results = visibleResults();
    var w = session.policy.windowMs;
    var limit = session.policy.limit;
    /** @type {number[]} */
    var xs = [0];
    results.forEach(function (r) {
      xs.push(r.t, r.t + w);
    });
    xs.push(engine.at);
    xs = xs
      .filter(function (x) {
        return x <= engine.at;
      })
      .sort(function (a, b) {
        return a - b;
      });
    /** @type {number[]} */
    var unique = [];
    xs.forEach(function (x) {
      if (unique.length === 0 || unique[unique.length - 1] !== x) unique.push(x);
    });
    /** @param {(r: PageResult) => boolean} admitted */
    var series = function (admitted) {
      var ts = /** @type {number[]} */ ([]);
      var cs = /** @type {number[]} */ ([]);
      results.forEach(function (r) {
        if (admitted(r)) {
          ts.push(r.t);
          cs.push(r.cost);
        }
      });
      var added = 0;
      var removed = 0;
      var sum = 0;
      return unique.map(function (x) {
        while (added < ts.length && ts[added] <= x) sum += cs[added++];
        while (removed < added && ts[removed] <= x - w) sum -= cs[removed++];
        return sum / limit;
      });
    };
    var shown = ALGS.filter(function (a) {
      return session.shown[a];
    });
    /** @type {(number | null)[][]} */
    var columns = [
      unique.map(function (x) {
        return x / 1000;
      }),
      unique.map(function () {
        return 1;
      }),
      series(function (r) {
        return r.oracle;
      }),
    ];
    shown.forEach(function (a) {
      var i = ALGS.indexOf(a);
      columns.push(
        series(function (r) {
          return r.decisions[i].allowed;
        }),
      );
    });
    return { columns: columns, shown: shown };
  }

  /** The peak of each algorithm's trailing-window ratio (and the oracle's), over the whole session so far. */
  function peaks() {
    var d = chartData();
    /** @type {Record<string, number>} */
    var out = {};
    var max = function (/** @type {(number | null)[]} */ v) {
      return v.reduce(function (/** @type {number} */ m, x) {
        return x !== null && x > m ? x : m;
      }, 0);
    };
    out.exact = max(d.columns[2]);
    d.shown.forEach(function (a, i) {
      out[a] = max(d.columns[3 + i]);
    });
    return out;
  }

  function drawChart() {
    var d = chartData();
    var width = Math.max(300, chartBox.clientWidth || 600);
    var shape = d.shown.join(',') + '|' + width;
    var span = (3 * session.policy.windowMs) / 1000;
    var hi = Math.max(engine.at / 1000, span);
    if (chart === null || shape !== chartShape) {
      if (chart) chart.destroy();
      chartShape = shape;
      /** @type {uPlot.Series[]} */
      var series = [
        { label: 'time (s)' },
        { label: 'limit', stroke: '#888', dash: [4, 4], width: 1 },
        {
          label: 'exact',
          stroke: '#000',
          width: 2,
          paths: uPlot.paths.stepped ? uPlot.paths.stepped({ align: 1 }) : undefined,
        },
      ];
      d.shown.forEach(function (a) {
        var i = ALGS.indexOf(a);
        series.push({
          label: a,
          stroke: COLOURS[i],
          dash: DASHES[i],
          width: 2,
          paths: uPlot.paths.stepped ? uPlot.paths.stepped({ align: 1 }) : undefined,
        });
      });
      chart = new uPlot(
        {
          width: width,
          height: width < 500 ? 160 : 180,
          series: series,
          scales: {
            x: { time: false, auto: false },
            y: {
              auto: false,
              range: function (_u, _lo, max) {
                return [0, Math.max(2.1, Math.ceil((max + 0.1) * 2) / 2)];
              },
            },
          },
          axes: [{ label: 'session time (s)' }, { label: '\u00d7 limit', size: 50 }],
          legend: { show: false },
        },
        /** @type {uPlot.AlignedData} */ (/** @type {unknown} */ (d.columns)),
        chartBox,
      );
    } else chart.setData(/** @type {uPlot.AlignedData} */ (/** @type {unknown} */ (d.columns)), false);
    chart.setScale('x', { min: Math.max(0, hi - span), max: hi });
    var top = 0;
    for (var c = 2; c < d.columns.length; c++)
      d.columns[c].forEach(function (v) {
        if (v !== null && v > top) top = v;
      });
    chart.setScale('y', { min: 0, max: Math.max(2.1, Math.ceil((top + 0.1) * 2) / 2) });
  }

  // ---- lessons ----

  /**
   * @typedef {{ id: string, title: string, policy: PagePolicy, setup: () => void, question: string,
   *   tryLabel: string, tryIt: () => void, expected: () => number, tolerance: number, answer: () => string }} Lesson
   */

  /** @param {string} alg */
  function admittedBy(alg) {
    var i = ALGS.indexOf(alg);
    return visibleResults().filter(function (r) {
      return r.decisions[i].allowed;
    }).length;
  }

  /** Sends one request every `gapMs` from `from` to before `to` (step mode). */
  function streamSteps(/** @type {number} */ from, /** @type {number} */ to, /** @type {number} */ gapMs) {
    setMode('step');
    for (var t = from; t < to; t += gapMs) {
      session.now = t;
      record(t, 1, 1);
    }
    changed();
  }

  /** @type {Lesson[]} */
  var LESSONS = [
    {
      id: 'edge',
      title: 'The fixed window lets 2\u00d7 through at its edge',
      policy: { limit: 10, windowMs: 1000, burst: null },
      setup: function () {},
      question:
        '10 requests at 999 ms and 10 at 1000 ms (the "N before + N after next edge" button, N = 10), at 10 per second: how many will the fixed window admit?',
      tryLabel: 'Send 10 before + 10 after the edge',
      tryIt: function () {
        burstIn.input.value = '10';
        edgeBurst(10);
      },
      expected: function () {
        return admittedBy('fixed-window');
      },
      tolerance: 0,
      answer: function () {
        var pk = peaks();
        return (
          'The fixed window admitted ' +
          admittedBy('fixed-window') +
          ' of ' +
          visibleResults().length +
          ': its count resets at 1000 ms, so its trailing window reads ' +
          fmt(pk['fixed-window'] || 0) +
          '\u00d7 the limit. The exact sliding log admitted ' +
          admittedBy('sliding-log') +
          ' (' +
          fmt(pk.exact) +
          '\u00d7).'
        );
      },
    },
    {
      id: 'counter',
      title: 'The sliding counter\u2019s worst case is ~2\u00d7',
      policy: { limit: 10, windowMs: 1000, burst: null },
      setup: function () {
        setMode('step');
        session.now = 999;
        record(999, 10, 1);
        changed();
      },
      question:
        'A full quota arrived at 999 ms, the very end of a window. Now a request every 10 ms from 1000 ms to 2 s: what is the most the sliding counter admits in one trailing second, \u00d7 the limit?',
      tryLabel: 'Stream every 10 ms for 1 s',
      tryIt: function () {
        streamSteps(1000, 2000, 10);
      },
      expected: function () {
        return peaks()['sliding-counter'] || 0;
      },
      tolerance: 0.15,
      answer: function () {
        var pk = peaks();
        return (
          'The counter weighs the previous window as if its 10 were spread evenly, so as its weight falls it admits more: its trailing second peaks at ' +
          fmt(pk['sliding-counter'] || 0) +
          '\u00d7 the limit (' +
          admittedBy('sliding-counter') +
          ' admitted in all); the exact oracle stays at ' +
          fmt(pk.exact) +
          '\u00d7.'
        );
      },
    },
    {
      id: 'bucket',
      title: 'The token bucket: a burst, then the steady rate',
      policy: { limit: 10, windowMs: 1000, burst: 20 },
      setup: function () {},
      question:
        'A bucket of 20 refilled at 10 per second; 50 requests per second for 2 s (100 requests): how many are admitted?',
      tryLabel: 'Stream 50/s for 2 s',
      tryIt: function () {
        streamSteps(0, 2000, 20);
      },
      expected: function () {
        return admittedBy('token-bucket');
      },
      tolerance: 1,
      answer: function () {
        return (
          'The token bucket admitted ' +
          admittedBy('token-bucket') +
          ': its 20 tokens at once, then one per 100 ms as they refill (20 + 10/s \u00d7 1.98 s). At most B + R\u00b7t in any interval (sch_tbf.c).'
        );
      },
    },
    {
      id: 'gcra',
      title: 'GCRA makes the token bucket\u2019s decisions',
      policy: { limit: 10, windowMs: 1000, burst: 20 },
      setup: function () {},
      question:
        'Send anything (bursts, streams, waits), or press the button for a mix. On how many requests do GCRA and the token bucket disagree?',
      tryLabel: 'Send a mix',
      tryIt: function () {
        setMode('step');
        var t = session.now;
        [7, 1, 25, 3, 12, 1, 30, 2].forEach(function (n, i) {
          t += i * 137;
          session.now = t;
          record(t, n, 1);
        });
        changed();
      },
      expected: function () {
        var a = ALGS.indexOf('token-bucket');
        var b = ALGS.indexOf('gcra');
        return visibleResults().filter(function (r) {
          return r.decisions[a].allowed !== r.decisions[b].allowed;
        }).length;
      },
      tolerance: 0,
      answer: function () {
        var tb = ALGS.indexOf('token-bucket');
        var g = ALGS.indexOf('gcra');
        var n = visibleResults().length;
        var differ = visibleResults().filter(function (r) {
          return r.decisions[tb].allowed !== r.decisions[g].allowed;
        }).length;
        return (
          differ +
          ' of ' +
          n +
          ' decisions differ: GCRA with emission interval T = W/limit and tolerance \u03c4 = (burst \u2212 1)\u00b7T is the token bucket (ITU-T I.371), in one number (the TAT) instead of tokens + time.'
        );
      },
    },
    {
      id: 'log-memory',
      title: 'The sliding log\u2019s memory grows with the limit',
      policy: { limit: 1000, windowMs: 1000, burst: null },
      setup: function () {},
      question:
        'At 1000 per second, after a burst of 1000: how many bytes of timestamps does the sliding log hold for this one key?',
      tryLabel: 'Burst 1000',
      tryIt: function () {
        send(1000);
      },
      expected: function () {
        var st = engine.limiters[ALGS.indexOf('sliding-log')].inspect?.(KEY);
        return st && st.algorithm === 'sliding-log' ? st.timestamps.length * 8 : 0;
      },
      tolerance: 0,
      answer: function () {
        var st = engine.limiters[ALGS.indexOf('sliding-log')].inspect?.(KEY);
        var held = st && st.algorithm === 'sliding-log' ? st.timestamps.length : 0;
        return (
          held +
          ' timestamps \u00d7 8 B = ' +
          held * 8 +
          ' B for one key, growing with the limit, where the fixed window keeps one 4 B count and the sliding counter two; the exactness costs memory.'
        );
      },
    },
  ];

  var lessonPanel = panel('Lessons');
  lessonPanel.id = 'lessons';
  var lessonList = el('div', 'row');
  var lessonBox = el('div', 'lesson panel');
  lessonBox.id = 'lesson';
  lessonBox.hidden = true;
  LESSONS.forEach(function (lesson, i) {
    lessonList.appendChild(
      button(
        i + 1 + '. ' + lesson.title,
        function () {
          startLesson(lesson);
        },
        'lesson-' + lesson.id,
      ),
    );
  });
  lessonPanel.appendChild(lessonList);
  side.insertBefore(lessonPanel, policyPanel);
  // The lesson being done sits above the views it is about.
  mainCol.insertBefore(lessonBox, mainCol.firstChild);

  /** @param {Lesson} lesson */
  function startLesson(lesson) {
    newSession();
    setMode('step');
    setPolicy(lesson.policy);
    lesson.setup();
    lessonBox.hidden = false;
    lessonBox.textContent = '';
    lessonBox.setAttribute('data-lesson', lesson.id);
    lessonBox.setAttribute('data-complete', 'false');
    lessonBox.appendChild(el('h3', null, lesson.title));
    lessonBox.appendChild(el('p', null, lesson.question));
    var row = el('div', 'row');
    var guess = numberInput('your answer', 'lesson-guess', null, 0);
    guess.input.step = 'any';
    row.appendChild(guess.wrap);
    var tryButton = button(
      lesson.tryLabel,
      function () {
        lesson.tryIt();
        tried = true;
      },
      'lesson-try',
    );
    var tried = false;
    var check = button(
      'Check',
      function () {
        if (!tried) {
          lesson.tryIt();
          tried = true;
        }
        var expected = lesson.expected();
        var given = Number(guess.input.value);
        var verdict =
          guess.input.value.trim() === ''
            ? 'The answer: '
            : Math.abs(given - expected) <= lesson.tolerance
              ? 'Right. '
              : 'Not quite (you said ' + given + '). ';
        var answer = el('p', 'answer', verdict + lesson.answer());
        answer.id = 'lesson-answer';
        answer.setAttribute('role', 'status');
        var old = document.getElementById('lesson-answer');
        if (old) old.remove();
        lessonBox.appendChild(answer);
        lessonBox.setAttribute('data-complete', 'true');
      },
      'lesson-check',
    );
    row.appendChild(tryButton);
    row.appendChild(check);
    lessonBox.appendChild(row);
    tryButton.focus();
  }

  // ---- keys ----

  document.addEventListener('keydown', function (event) {
    var target = /** @type {HTMLElement} */ (event.target);
    var tag = target.tagName;
    if (tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA') return;
    if (event.altKey || event.metaKey) return;
    var key = event.key;
    if (key === ' ') {
      if (tag === 'BUTTON') return; // the focused button's own action
      event.preventDefault();
      send(1);
    } else if (key === 'ArrowRight') {
      event.preventDefault();
      setMode('step');
      moveTo(session.now + (event.ctrlKey ? 100 : event.shiftKey ? 10 : 1));
    } else if (key === 'ArrowLeft') {
      event.preventDefault();
      setMode('step');
      moveTo(session.now - (event.ctrlKey ? 100 : event.shiftKey ? 10 : 1));
    } else if (key === 'e' || key === 'E') {
      setMode('step');
      moveTo(nextEdge());
    } else if (key === 'p' || key === 'P') {
      setMode(session.mode === 'step' ? 'real' : 'step');
    } else if (key === 'b' || key === 'B') {
      send(readWhole(burstIn.input, 10));
    } else if (key === 'x' || key === 'X') {
      edgeBurst(readWhole(burstIn.input, 10));
    } else if ((key === 's' || key === 'S') && !event.repeat) {
      startStream();
    } else if (key === 'n' || key === 'N') {
      newSession();
    }
  });
  document.addEventListener('keyup', function (event) {
    if (event.key === 's' || event.key === 'S') stopStream();
  });

  // ---- redraw ----

  var drawDue = false;
  function changed() {
    if (!fragmentDue) {
      fragmentDue = true;
      requestAnimationFrame(writeFragment);
    }
    render();
  }

  function render() {
    drawDue = false;
    if (session.mode === 'real') session.now = realNow();
    while (session.pending.length > 0 && session.pending[0].t <= session.now) {
      var ev = /** @type {PageEvent} */ (session.pending.shift());
      var keep = session.now;
      session.now = ev.t;
      record(ev.t, 1, ev.cost);
      session.now = keep;
      fragmentDue = true;
      requestAnimationFrame(writeFragment);
    }
    session.horizon = Math.max(session.horizon, session.now);
    decideTo(session.now);
    clockText.textContent = 't = ' + fmtTime(session.now) + (session.mode === 'real' ? ' (real time)' : ' (step mode)');
    realButton.setAttribute('aria-pressed', String(session.mode === 'real'));
    stepButton.setAttribute('aria-pressed', String(session.mode === 'step'));
    var end = session.events.length > 0 ? session.events[session.events.length - 1].t : 0;
    rewind.max = String(Math.max(session.horizon, end, 1));
    rewind.value = String(session.now);
    ALGS.forEach(function (a) {
      algBoxes[a].checked = session.shown[a];
    });
    drawLanes();
    drawChart();
    if (hovered === null) showDetail(visibleResults().length - 1);
    document.body.setAttribute('data-now', String(session.now));
  }

  function frame() {
    if (session.mode === 'real' && !drawDue) {
      var now = realNow();
      // Redraw as time passes: the windows slide even without requests (at most ~30 a second).
      if (now - engine.at >= 33 || session.pending.length > 0) render();
    }
    requestAnimationFrame(frame);
  }

  window.addEventListener('resize', function () {
    chartShape = '';
    render();
  });

  // ---- start: the fragment's session, or a fresh one ----

  var fragment = location.hash.replace(/^#/, '');
  var unreadable = false;
  if (fragment !== '') {
    var decoded = decodeFragment(decodeURIComponent(fragment));
    if ('error' in decoded) {
      unreadable = true;
      showNotice('The link holds no session the playground can read (' + decoded.error + '): opened a fresh session.');
    } else {
      session.policy = decoded.policy;
      session.events = decoded.events;
      decoded.hidden.forEach(function (a) {
        session.shown[a] = false;
      });
      session.mode = 'step';
      session.now = decoded.now;
      limitIn.input.value = String(decoded.policy.limit);
      windowIn.input.value = String(decoded.policy.windowMs);
      burstPolicyIn.input.value = decoded.policy.burst === null ? '' : String(decoded.policy.burst);
      engine = freshEngine();
    }
  }
  render();
  if (fragment === '' || unreadable) writeFragment();
  requestAnimationFrame(frame);

  /** What the tests and the bench read and drive. */
  window.ratelabPlayground = {
    session: function () {
      return {
        policy: session.policy,
        now: session.now,
        mode: session.mode,
        events: session.events.length,
      };
    },
    /** Per algorithm, each decided request's outcome: A, D, FA, FD (vs the oracle). */
    strips: function () {
      /** @type {Record<string, string[]>} */
      var out = {};
      ALGS.forEach(function (a, i) {
        out[a] = visibleResults().map(function (r) {
          return KIND_LETTER[kindOf(r, i)];
        });
      });
      return out;
    },
    /** Per algorithm, each decided request's allowed flag; and the oracle's. */
    admitted: function () {
      /** @type {Record<string, boolean[]>} */
      var out = {
        exact: visibleResults().map(function (r) {
          return r.oracle;
        }),
      };
      ALGS.forEach(function (a, i) {
        out[a] = visibleResults().map(function (r) {
          return r.decisions[i].allowed;
        });
      });
      return out;
    },
    peaks: peaks,
    /** The trailing-window chart: its y axis's top (x the limit) and its series' labels. */
    chart: function () {
      return {
        yMax: chart && chart.scales.y.max !== undefined ? chart.scales.y.max : 0,
        series: chart
          ? chart.series.map(function (s) {
              return String(s.label);
            })
          : [],
      };
    },
    trace: traceCsv,
    fragment: encodeFragment,
    /** Replaces the session by `events` ([t, cost] in time order) at `policy`, decided to the last one: returns ms taken. */
    replay: function (/** @type {[number, number][]} */ events, /** @type {PagePolicy} */ policy) {
      var start = performance.now();
      session.events = events.map(function (e) {
        return { t: e[0], cost: e[1] };
      });
      session.mode = 'step';
      session.now = events.length > 0 ? events[events.length - 1][0] : 0;
      setPolicy(policy);
      return performance.now() - start;
    },
  };
  document.body.setAttribute('data-ready', 'true');
})();
