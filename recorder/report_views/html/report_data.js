/* report_data.js - the first part of the interactive half of `jitprof report --html`: opens
 * the page's function and holds what every part uses (helpers, colours, the data's compact
 * forms decoded, weights as each event counts them); report.js, built after it into the same
 * <script> (recorder/report/module.mk), draws and closes the function. Embedded into the file
 * at build time; no network, no libraries. Reads the JSON in <script id="data">. */
(function () {
	'use strict';
	var ALL = JSON.parse(document.getElementById('data').textContent), D = ALL;
	var ROW = 17, HIT = 'rgb(230,0,230)';
	var $ = function (id) { return document.getElementById(id); };
	var el = function (tag, attrs, text) {
		var e = document.createElement(tag);
		for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
		if (text !== undefined) e.textContent = text;
		return e;
	};
	var svgEl = function (tag, attrs) {
		var e = document.createElementNS('http://www.w3.org/2000/svg', tag);
		for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
		return e;
	};
	function pct(n, tot) { return tot ? (100 * n / tot).toFixed(2) + '%' : '0%'; }
	function hash(s) {
		var h = 2166136261;
		for (var i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
		return (h >>> 0) / 4294967296;
	}
	function kindColor(k, name) {
		var c = D.colors[k];
		return 'hsl(' + c[0] + ',' + c[1] + '%,' + (c[2] - 8 + Math.floor(hash(name) * 16)) + '%)';
	}
	/* As the SVG's: white unchanged, to full red (a larger share) or blue at 5 points. */
	function diffColor(points) {
		var f = Math.max(-1, Math.min(1, points / 5)), fade = 255 - Math.round(Math.abs(f) * 200);
		return f >= 0 ? 'rgb(255,' + fade + ',' + fade + ')' : 'rgb(' + fade + ',' + fade + ',255)';
	}
	function change(i) {
		var p = T.p[i] / 100;
		return (p >= 0 ? '+' : '') + p.toFixed(2) + ' points since the base';
	}

	/* ---- the data's compact forms (html_tree.c) ---------------------------------------- */
	/* Names sorted, each "shared prefix length:rest". */
	var NAMES = [];
	(function () {
		var prev = '';
		for (var i = 0; i < ALL.names.length; i++) {
			var e = ALL.names[i], c = e.indexOf(':');
			prev = prev.substring(0, +e.substring(0, c)) + e.substring(c + 1);
			NAMES.push(prev);
		}
	})();
	var STEPS = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXY', STEP = {};
	for (var si = 0; si < STEPS.length; si++) STEP[STEPS.charAt(si)] = si;
	/* Pre-order nodes: n name index (-1 root, narrow), c samples, k kind (a digit each), u the
	 * depth's step from the node before (one character, or ~N;), m narrow pairs, p change. */
	function decode(t) {
		var n = t.c.length, k = new Uint8Array(n), d = new Int32Array(n), m = new Int32Array(n);
		for (var i = 0; i < n; i++) k[i] = t.k.charCodeAt(i) - 48;
		for (var j = 1, pos = 0; j < n; j++) {
			var ch = t.u.charAt(pos++), up;
			if (ch === '~') {
				var e = t.u.indexOf(';', pos);
				up = +t.u.substring(pos, e);
				pos = e + 1;
			} else up = STEP[ch];
			d[j] = d[j - 1] + 1 - up;
		}
		for (var q = 0; q + 1 < t.m.length; q += 2) m[t.m[q]] = t.m[q + 1];
		return { n: t.n, c: t.c, k: k, d: d, m: m, p: t.p };
	}
	/* The callers' tree from the callees': each node's own samples (its count less its
	 * children's) are a stack, walked from it up to the command and added from the root
	 * down; siblings heaviest first, as the page's trees come. */
	function invert(t) {
		var n = t.c.length, parent = new Int32Array(n), last = [], self = t.c.slice();
		for (var i = 1; i < n; i++) {
			parent[i] = last[t.d[i] - 1] || 0;
			last[t.d[i]] = i;
			self[parent[i]] -= t.c[i];
		}
		var root = { c: 0, kids: {}, n: -1, k: 0, m: 0 };
		for (var j = 1; j < n; j++) {
			if (self[j] <= 0) continue;
			var at = root;
			root.c += self[j];
			for (var x = j; x > 0; x = parent[x]) {
				var key = t.n[x] >= 0 ? t.n[x] : '~' + t.m[x], nx = at.kids[key];
				if (!nx) nx = at.kids[key] = { c: 0, kids: {}, n: t.n[x], k: t.k[x], m: t.m[x] };
				nx.c += self[j];
				at = nx;
			}
		}
		var r = { n: [], c: [], k: [], d: [], m: [] };
		(function walk(a, depth) {
			r.n.push(a.n); r.c.push(a.c); r.k.push(a.k); r.d.push(depth); r.m.push(a.m);
			Object.keys(a.kids).map(function (key) { return a.kids[key]; })
				.sort(function (p, q) { return q.c - p.c; })
				.forEach(function (kid) { walk(kid, depth + 1); });
		})(root, 0);
		return r;
	}

	/* A weight as event t counts it: samples, time (offcpu, wall, lock: nanoseconds) or
	 * bytes (alloc). */
	function weighs(t, c) {
		if (t.bytes)
			return c >= 1 << 30 ? (c / (1 << 30)).toFixed(2) + ' GiB' : c >= 1 << 20 ?
				(c / (1 << 20)).toFixed(1) + ' MiB' : (c / 1024).toFixed(1) + ' KiB';
		return t.time ? (c >= 1e9 ? (c / 1e9).toFixed(2) + ' s' : (c / 1e6).toFixed(1) + ' ms')
			      : c + ' samples';
	}
	function weight(c) { return weighs(D, c); }

