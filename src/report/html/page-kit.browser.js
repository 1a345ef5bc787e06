// What every HTML report's page script draws with (inlined by html-document.ts's htmlPage
// before the page script): building elements with text only, the tables, and the width of
// the charts. Sets window.ratelabKit. Type checked by tsc -p tsconfig.browser.json.
// @ts-check
(function () {
  'use strict';

  /**
   * An element with a class and text (never markup).
   * @template {keyof HTMLElementTagNameMap} K
   * @param {K} tag
   * @param {string | null} [className]
   * @param {unknown} [text]
   * @returns {HTMLElementTagNameMap[K]}
   */
  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  /**
   * A table under its title (when it has one); a null cell shows as `-`.
   * @param {import('./html-document.js').HtmlTable} spec
   * @param {string} [className]
   */
  function table(spec, className) {
    var wrap = el('div');
    if (spec.title) wrap.appendChild(el('h3', null, spec.title));
    var t = el('table', className);
    var head = el('tr');
    spec.columns.forEach(function (c) {
      head.appendChild(el('th', null, c));
    });
    t.appendChild(head);
    spec.rows.forEach(function (row) {
      var tr = el('tr');
      row.forEach(function (cell) {
        tr.appendChild(el('td', null, cell === null ? '-' : cell));
      });
      t.appendChild(tr);
    });
    wrap.appendChild(t);
    return wrap;
  }

  /**
   * The width of the report's content (its padding excluded), for every chart.
   * @param {HTMLElement} root
   */
  function chartWidth(root) {
    var style = getComputedStyle(root);
    var inner = root.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    return Math.max(320, Math.min(1150, Math.floor(inner) - 4));
  }

  window.ratelabKit = { el: el, table: table, chartWidth: chartWidth };
})();
