/* report.js - the interactive half of `jitprof report --html`, after report_data.js (its
 * helpers and the data decoded; one <script>, one function: this file closes it). Draws the
 * summary (what was profiled, the hottest methods and lines, the report's warnings), a flame
 * graph on a canvas (hover shows a frame's tooltip, click zooms, search highlights and prints
 * the matched share, Invert shows callers), the generations timeline (one lane per generation
 * over the recording's time axis), the top table and the hottest source lines. With --diff,
 * the flame graph is coloured by how each frame's share moved since the base (D.diff, T.p).
 * A recording of several events has a tab each (ALL.tabs, their trees ALL.tab_trees, the
 * names shared): a tab switch draws #page anew from its first markup with that event's data. */
	/* ---- tabs: one per event ---------------------------------------------------------- */
	var PAGE = $('page').innerHTML, redraw = null, current = 0, renders = 0;
	/* Tab k's data: the page's own (tab 0) or its tab's fields over the page's. */
	function tabData(k) {
		if (!k) return ALL;
		var t = ALL.tabs[k - 1], d = {};
		for (var a in ALL) d[a] = ALL[a];
		for (var b in t) d[b] = t[b];
		d.tree = ALL.tab_trees[k - 1];
		d.rtree = null;
		d.gens = null;	/* per node of the reported event's tree only */
		return d;
	}
	function tabs() {
		return [ALL].concat(ALL.tabs || []).map(function (t) { return t.event; });
	}
	function showTab(k) {
		current = k;
		document.body.setAttribute('data-ready', '0');
		var bar = $('tabs');
		bar.textContent = '';
		bar.style.display = ALL.tabs ? '' : 'none';
		tabs().forEach(function (ev, i) {
			var t = tabData(i), tot = t.tree.c[0] || 0, b = el('button', {
				'class': i === k ? 'tab on' : 'tab', 'data-event': ev },
				ev + ': ' + (t.time ? (tot / 1e9).toFixed(2) + ' s' : weighs(t, tot)));
			b.onclick = function () { showTab(i); };
			bar.appendChild(b);
		});
		$('page').innerHTML = PAGE;
		render(tabData(k));
	}
	window.addEventListener('resize', function () { if (redraw) redraw(); });

	function render(data) {
		var mine = ++renders;	/* a switch before its timeline is drawn: not drawn */
		D = data;
		/* ---- flame graph ------------------------------------------------------------------ */
		var canvas = $('flame'), ctx = canvas.getContext('2d');
		var T = null, zoomed = 0, hit = null, inverted = false;

		/* Pre-order arrays (name, kind, count, depth) -> x of every node, in samples, its parent
		 * and the end of its subtree (the next node not below it): drawing skips a frame too
		 * narrow to see with everything above it in one step. */
		function layout(t) {
			var n = t.c.length, x = new Float64Array(n), next = [0], maxd = 0;
			var up = new Int32Array(n), end = new Int32Array(n), last = [];
			for (var i = 0; i < n; i++) {
				var d = t.d[i];
				x[i] = next[d] || 0;
				next[d] = x[i] + t.c[i];
				next[d + 1] = x[i];
				if (d > maxd) maxd = d;
				up[i] = d ? last[d - 1] : -1;
				last[d] = i;
			}
			for (var j = n - 1; j >= 0; j--) {
				if (!end[j]) end[j] = j + 1;
				if (up[j] >= 0 && end[j] > end[up[j]]) end[up[j]] = end[j];
			}
			t.x = x;
			t.maxd = maxd;
			t.up = up;
			t.end = end;
			t.col = [];
			return t;
		}
		function name(i) {
			var k = T.n[i];
			return k < 0 ? (T.m[i] ? '[' + T.m[i] + ' narrow frames]' : 'all') : NAMES[k];
		}
		function isAncestor(a, b) {	/* a is b or above b */
			return T.d[a] <= T.d[b] && T.x[a] <= T.x[b] + 1e-9 &&
				T.x[a] + T.c[a] >= T.x[b] + T.c[b] - 1e-9;
		}
		function visible(i) {
			return isAncestor(i, zoomed) || isAncestor(zoomed, i);
		}
		function geometry(i) {
			var W = canvas.clientWidth, z = zoomed;
			if (T.d[i] < T.d[z]) return [0, W];
			var s = W / T.c[z];
			return [(T.x[i] - T.x[z]) * s, T.c[i] * s];
		}
		/* fn(i, x, w) for the zoomed frame's ancestors (full width) and every frame below it at
		 * least min px wide. */
		function eachShown(min, fn) {
			var W = canvas.clientWidth, z = zoomed, s = W / T.c[z], xz = T.x[z];
			for (var a = T.up[z]; a >= 0; a = T.up[a]) fn(a, 0, W);
			for (var i = z, end = T.end[z]; i < end;) {
				var w = T.c[i] * s;
				if (w < min) { i = T.end[i]; continue; }
				fn(i, (T.x[i] - xz) * s, w);
				i++;
			}
		}
		function colorOf(i, nm) {
			if (hit && T.n[i] >= 0 && hit(nm)) return HIT;
			if (D.diff) return diffColor(T.p[i] / 100);
			if (T.n[i] < 0) return T.m[i] ? '#bbb' : '#d9d6c8';
			return T.col[i] || (T.col[i] = kindColor(T.k[i], nm));
		}
		function draw() {
			var W = canvas.clientWidth, maxd = 0;
			eachShown(1, function (i) { if (T.d[i] > maxd) maxd = T.d[i]; });	/* as tall as what can be seen */
			var H = (maxd + 1) * ROW + 4;
			var r = window.devicePixelRatio || 1;
			canvas.style.height = H + 'px';
			canvas.width = W * r;
			canvas.height = H * r;
			ctx.setTransform(r, 0, 0, r, 0, 0);
			ctx.font = '12px monospace';
			ctx.textBaseline = 'middle';
			var drawn = 0;
			eachShown(0.3, function (i, x, w) {
				var y = T.d[i] * ROW, nm = name(i);
				ctx.fillStyle = colorOf(i, nm);
				ctx.fillRect(x, y, Math.max(w - 0.5, 0.5), ROW - 1);
				if (D.diff) {	/* white frames on the light page need an edge */
					ctx.strokeStyle = '#bbb';
					ctx.lineWidth = 0.5;
					ctx.strokeRect(x, y, Math.max(w - 0.5, 0.5), ROW - 1);
				}
				drawn++;
				var chars = Math.floor((w - 6) / 7.2);
				if (chars > 2) {
					ctx.fillStyle = '#000';
					ctx.fillText(chars >= nm.length ? nm : nm.substring(0, chars - 2) + '..',
						     x + 3, y + ROW / 2);
				}
			});
			canvas.setAttribute('data-drawn', drawn);
		}
		function nodeAt(px, py) {
			var d = Math.floor(py / ROW), found = -1;
			eachShown(0.3, function (i, x, w) {
				if (T.d[i] === d && px >= x && px < x + w) found = i;
			});
			return found;
		}
		/* The frame's own samples per generation of the code they ran in (the callees'
		 * tree only: D.gens is per node of it, and of the reported event's tab only). An
		 * inlined frame has no code of its own: its samples are in the generations of the
		 * frame it was inlined into, said so with that frame's name. Never the method's
		 * generations as a whole: those count other frames' samples. */
		var NODE_GENS = {};
		(D.gens || []).forEach(function (g) {
			(NODE_GENS[g[0]] = NODE_GENS[g[0]] || []).push(g);
		});
		function frameGens(i) {
			var gs = T === FWD ? NODE_GENS[i] : null, nm = name(i);
			if (!gs) return '';
			var list = gs.map(function (g) { return 'gen ' + g[1] + ' ' + g[2] + ' ' + g[3]; })
				.join(', ');
			if (!/_\[i\]$/.test(nm)) return '\ngenerations (this frame\'s samples): ' + list;
			var host = T.up[i];
			while (host > 0 && /_\[i\]$/.test(name(host))) host = T.up[host];
			return '\ninlined into ' + (host > 0 ? name(host) : '?') +
				'; its generations (this frame\'s samples): ' + list;
		}
		function details(i) {
			var nm = name(i), txt = nm + '\n' + D.kinds[T.k[i]] + ', ' + weight(T.c[i]) + ', ' +
				pct(T.c[i], T.c[0]) + ' of all' + (D.diff ? ', ' + change(i) : '');
			$('details').textContent = txt + frameGens(i);
		}
		function zoom(i) {
			zoomed = i < 0 ? 0 : i;
			canvas.setAttribute('data-zoom', name(zoomed));
			details(zoomed);
			draw();
		}
		/* What the user typed, as meant: Java and JavaScript names are full of regex characters
		 * ($ in lambdas and inner classes, parentheses and dots in signatures), so a name matches
		 * when it contains the text as typed, or when the text is a regex that matches it; a
		 * text that is no valid regex is only looked for as typed. */
		function matcher(s) {
			if (!s) return null;
			var re = null;
			try { re = new RegExp(s); } catch (e) { re = null; }
			return function (nm) { return nm.indexOf(s) >= 0 || (re !== null && re.test(nm)); };
		}
		/* The share of samples under matched frames, each counted once (pre-order: x never
		 * decreases, so a match starting before the last counted one's end is inside it). */
		function search(s) {
			hit = matcher(s);
			var m = 0, end = -1;
			if (hit) for (var i = 1; i < T.c.length; i++) {
				if (T.n[i] < 0 || !hit(name(i)) || T.x[i] < end - 1e-9) continue;
				m += T.c[i];
				end = T.x[i] + T.c[i];
			}
			$('matched').textContent = hit ? 'Matched: ' + pct(m, T.c[0]) : '';
			draw();
			return m;
		}
		function use(tree) {
			T = layout(tree);
			zoomed = 0;
			$('flame-mode').textContent = (inverted ? 'callers (inverted): leaf functions first'
							      : 'callees: outermost caller first') +
				(D.diff ? '; differential: red grew, blue shrank since the base' : '');
			search($('search').value);
		}
		canvas.addEventListener('click', function (e) {
			var r = canvas.getBoundingClientRect();
			zoom(nodeAt(e.clientX - r.left, e.clientY - r.top));
		});
		/* The hover tooltip: the frame's full name, kind, samples and share, its method's
		 * hottest lines and the frame's samples per generation (frameGens). */
		var tip = $('tip');
		function linesOf(nm) {
			var base = nm.replace(/_\[i\]$/, '').replace(/ \[gen \d+\]$/, '');
			return D.lines.filter(function (l) { return l.method === base; }).slice(0, 3);
		}
		function tipText(i) {
			var nm = name(i), txt = nm + '\n' + D.labels[T.k[i]] + ': ' + weight(T.c[i]) + ', ' +
				pct(T.c[i], T.c[0]) + ' of all' + (D.diff ? ', ' + change(i) : '');
			var ls = T.n[i] >= 0 ? linesOf(nm) : [];
			if (ls.length) txt += '\nthe method\'s hottest lines (all its frames): ' +
				ls.map(function (l) { return l.line + ' (' + l.samples + ')'; }).join(', ');
			return txt + (T.n[i] >= 0 ? frameGens(i) : '');
		}
		function showTip(e, txt) {
			tip.textContent = txt;
			tip.style.display = 'block';
			var w = tip.offsetWidth, h = tip.offsetHeight;
			var x = e.clientX + 14, y = e.clientY + 16;
			if (x + w > window.innerWidth - 4) x = Math.max(4, e.clientX - w - 10);
			if (y + h > window.innerHeight - 4) y = Math.max(4, e.clientY - h - 10);
			tip.style.left = x + 'px';
			tip.style.top = y + 'px';
		}
		function hideTip() { tip.style.display = 'none'; }
		canvas.addEventListener('mousemove', function (e) {
			var r = canvas.getBoundingClientRect(), i = nodeAt(e.clientX - r.left, e.clientY - r.top);
			if (i < 0) hideTip();
			else showTip(e, tipText(i));
		});
		canvas.addEventListener('mouseleave', hideTip);
		$('search').addEventListener('keydown', function (e) {
			if (e.key === 'Enter') search(this.value);
		});
		$('search-btn').onclick = function () { search($('search').value); };
		$('reset').onclick = function () { $('search').value = ''; zoom(0); search(''); };
		var FWD = decode(D.tree), REV = D.rtree ? decode(D.rtree) : null;
		$('invert').onclick = function () {
			inverted = !inverted;
			if (inverted && !REV) REV = invert(FWD);
			use(inverted ? REV : FWD);
		};
		redraw = draw;

		/* ---- legend, header --------------------------------------------------------------- */
		var lg = $('legend');
		if (D.diff) [[5, 'a larger share of samples than in the base'], [-5, 'a smaller one'],
			     [0, 'unchanged (full colour at 5 points)']].forEach(function (d) {
			var s = el('span'), sw = el('i');
			sw.style.background = diffColor(d[0]);
			sw.style.border = '1px solid #bbb';
			s.appendChild(sw);
			s.appendChild(document.createTextNode(d[1]));
			lg.appendChild(s);
		});
		else D.present.forEach(function (k) {
			var s = el('span');
			var sw = el('i');
			sw.style.background = kindColor(k, 'x');
			s.appendChild(sw);
			s.appendChild(document.createTextNode(D.labels[k]));
			lg.appendChild(s);
		});

		/* ---- generations timeline --------------------------------------------------------- */
		/* What ended a generation, as its lane marks it; null while it still ran at the end. */
		function endOf(g) {
			if (g.ended === 'running' || g.until_by === 'recording_end') return null;
			if (g.ended === 'replaced') return { color: '#555', label: (g.by_gen !== null ?
				'replaced by gen ' + g.by_gen : 'replaced') + (g.why ? ' (' + g.why.replace(/_/g, ' ') + ')' : '') +
				(g.until_by === 'before_attach' ? ' before the attach' : '') };
			if (g.ended === 'unloaded') return { color: '#c00', label: 'unloaded' };
			var why = g.why ? g.why.split(',')[0] : '';
			if (g.ended === 'deopt') return { color: '#c45a00', label: why || 'deoptimized' };
			if (g.ended === 'dependency') return { color: '#c45a00', label: why || 'dependency broken' };
			return { color: '#c45a00', label: 'made not entrant' };
		}

		var measure = document.createElement('canvas').getContext('2d');
		var widths = {};	/* the few labels, each measured once */
		measure.font = '10px sans-serif';
		function textWidth(t) {
			return widths[t] || (widths[t] = measure.measureText(t).width);
		}

		function timeline() {
			var box = $('timeline'), W = Math.max(box.clientWidth - 130, 300), LH = 20;
			var tierColor = { 'C1': 4, 'C2': 5, 'interp': 3, 'baseline': 4, 'maglev': 4,
				'turbofan': 5 };
			if (D.timeline_sources) box.appendChild(el('p', { 'class': 'sources', id: 'timeline-sources' },
				D.timeline_sources));
			if (!D.timeline.length) box.appendChild(el('p', {}, 'No method was compiled more than once.'));
			D.timeline.forEach(function (m) {
				var div = el('div', { 'class': 'method', 'data-method': m.method });
				div.appendChild(el('div', { 'class': 'name' }, m.method + '  (pid ' + m.pid + ', ' +
					m.gens.length + ' generations, ' + m.samples + ' samples)'));
				var max = 1;
				m.gens.forEach(function (g) { g.hist.forEach(function (v) { if (v > max) max = v; }); });
				var svg = svgEl('svg', { 'class': 'tl', width: W + 130, height: m.gens.length * LH + 18 });
				m.gens.forEach(function (g, row) {
					var y = row * LH, k = tierColor[g.tier.split('/')[0]];
					var col = k === undefined ? 'hsl(280,45%,60%)' : kindColor(k, g.tier);
					var lane = svgEl('g', { 'class': 'lane', 'data-gen': g.gen, 'data-samples': g.samples });
					var lbl = svgEl('text', { x: 0, y: y + 13, 'font-size': 11, 'font-family': 'monospace' });
					lbl.textContent = 'gen ' + g.gen + ' ' + g.tier;
					lane.appendChild(lbl);
					var X = function (t) { return 120 + Math.min(Math.max(t, 0), D.duration_s) / D.duration_s * W; };
					var x0 = X(g.load), x1 = X(g.end), xu = X(Math.min(Math.max(g.until, g.load), g.end));
					/* Active: from its load until it ended (the next generation took over, it
					 * was made not entrant, unloaded); then, fainter, the time its code stayed
					 * in memory unused. */
					lane.appendChild(svgEl('rect', { x: x0, y: y + 3, width: Math.max(xu - x0, 1),
						height: LH - 6, fill: col, 'fill-opacity': 0.25 }));
					if (x1 > xu + 0.5) lane.appendChild(svgEl('rect', { 'class': 'idle', x: xu, y: y + 3,
						width: x1 - xu, height: LH - 6, fill: col, 'fill-opacity': 0.07 }));
					var bw = W / g.hist.length;
					g.hist.forEach(function (v, b) {
						if (!v) return;
						var h = Math.max(2, (LH - 6) * v / max);
						lane.appendChild(svgEl('rect', { x: 120 + b * bw, y: y + LH - 3 - h,
							width: Math.max(bw - 0.5, 0.5), height: h, fill: col }));
					});
					lane.appendChild(svgEl('rect', { x: x0 - 1, y: y + 1, width: 2, height: LH - 2,
						fill: '#333' }));	/* load */
					var end = endOf(g);
					if (end) {
						lane.appendChild(svgEl('rect', { 'class': 'until', 'data-ended': g.ended,
							x: xu - 1, y: y + 1, width: 2, height: LH - 2, fill: end.color }));
						/* Beside the mark, after it where it fits, else before it; on a light
						 * backing so the lane's bars do not cross the words. */
						var tw = textWidth(end.label), right = 120 + W - (xu + 4) >= tw;
						var tx = right ? xu + 4 : Math.max(xu - 4 - tw, 0);
						lane.appendChild(svgEl('rect', { x: tx - 1, y: y + 4, width: tw + 2, height: LH - 8,
							fill: '#fff', 'fill-opacity': 0.75 }));
						var txt = svgEl('text', { 'class': 'why', x: tx, y: y + 13, 'font-size': 10,
							'font-family': 'sans-serif', fill: end.color });
						txt.textContent = end.label;
						lane.appendChild(txt);
					}
					if (g.unloaded && (!end || x1 - xu > 2)) lane.appendChild(svgEl('rect', {
						x: x1 - 1, y: y + 1, width: 2, height: LH - 2, fill: '#c00' }));	/* unload */
					/* The hover tooltip: the method, the generation, its samples and share. */
					var text = m.method + '\ngen ' + g.gen + ' ' + g.tier +
						(g.level !== null ? ', level ' + g.level : '') +
						(g.id !== null ? ', compile id ' + g.id : '') + ': ' + g.samples + ' samples, ' +
						pct(g.samples, D.samples) + ' of all\n' +
						'loaded ' + g.load.toFixed(3) + ' s, active until ' + g.until.toFixed(3) + ' s (' +
						g.until_by.replace(/_/g, ' ') + ')' +
						(g.end > g.until + 5e-4 ? ', in memory until ' + g.end.toFixed(3) + ' s' +
						 (g.unloaded ? ' (unloaded)' : '') : '') +
						(end ? '\nended: ' + end.label : '') +
						(g.why && g.ended !== 'replaced' ? '\n' + g.why : '');
					lane.addEventListener('mousemove', function (e) { showTip(e, text); });
					lane.addEventListener('mouseleave', hideTip);
					svg.appendChild(lane);
				});
				var axis = svgEl('text', { x: 120, y: m.gens.length * LH + 14, 'font-size': 10 });
				axis.textContent = '0 s';
				svg.appendChild(axis);
				var axis2 = svgEl('text', { x: 120 + W, y: m.gens.length * LH + 14, 'font-size': 10,
					'text-anchor': 'end' });
				axis2.textContent = D.duration_s.toFixed(2) + ' s';
				svg.appendChild(axis2);
				div.appendChild(svg);
				box.appendChild(div);
			});
		}

		/* ---- tables ----------------------------------------------------------------------- */
		function table(id, head, rows) {
			var t = $(id), tr = el('tr');
			head.forEach(function (h) { tr.appendChild(el('th', {}, h)); });
			t.appendChild(tr);
			rows.forEach(function (r) {
				var tr = el('tr');
				r.forEach(function (v, i) { tr.appendChild(el('td', i < 2 ? { 'class': 'num' } : {}, v)); });
				t.appendChild(tr);
			});
		}
		table('top', ['Overhead', 'Samples'].concat(D.top.keys), D.top.rows.map(function (r) {
			return [r.pct.toFixed(2) + '%', r.samples].concat(r.v);
		}));
		table('lines', ['Overhead', 'Samples', 'Source:Line', 'Method'], D.lines.map(function (r) {
			return [r.pct.toFixed(2) + '%', r.samples, r.line, r.method];
		}));
		function noLineNote() {
			return D.no_line ? pct(D.no_line, D.samples) + ' of samples have no source line ' +
				'(native, kernel, runtime stubs, or code without line tables): not listed.' : '';
		}
		$('lines-note').textContent = noLineNote();

		/* ---- summary: what was profiled, where the time went, what to fix ----------------- */
		function summary() {
			var S = D.summary, box = $('profiled');
			if (D.jvm) {	/* the JVM's samples: methods and lines where they allocate or wait */
				$('sum-methods-h').textContent = D.bytes ? 'Methods that allocate most ' +
					'(share of the bytes)' : 'Methods that wait most for a monitor (share of the time)';
				$('sum-lines-h').textContent = D.bytes ? 'Lines that allocate most' :
					'Lines that wait most';
			}
			box.appendChild(el('b', {}, S.procs.map(function (p) {
				return p.name + ' (pid ' + p.pid + ')';
			}).join(', ') || 'no samples'));
			box.appendChild(document.createTextNode(': ' + (D.time ? weight(FWD.c[0]) + ' of ' +
				D.event + ' (' + D.samples + (D.jvm ? ' contended enters)' :
				' intervals and samples)') : D.bytes ?
				weight(FWD.c[0]) + ' of ' + D.event + ' (' + D.samples + ' samples)' :
				D.samples + ' samples of ' + D.event) +
				' over ' + D.duration_s.toFixed(2) + ' s' + (S.procs.length > 1 ? ' (' +
				S.procs.map(function (p) { return p.name + ' ' + p.samples; }).join(', ') + ')' : '') +
				'; ' + pct(S.method_samples, D.samples) + ' in compiled or interpreted methods.'));
			var w = $('warnings');
			if (!S.warnings.length) w.style.display = 'none';
			S.warnings.forEach(function (t) { w.appendChild(el('li', {}, t)); });
			if (S.more_warnings) w.appendChild(el('li', {}, S.more_warnings +
				' more warnings: see the report\'s standard error.'));
			/* A row found in the flame graph on a click. */
			function find(nm) {
				$('search').value = nm;
				search(nm);
				$('flame-sec').scrollIntoView();
			}
			function rows(id, head, list, cells) {
				var t = $(id), tr = el('tr');
				head.forEach(function (h) { tr.appendChild(el('th', {}, h)); });
				t.appendChild(tr);
				list.forEach(function (r) {
					var row = el('tr', { title: 'click: find it in the flame graph' });
					cells(r).forEach(function (v, i) {	/* names cut to fit: whole on hover */
						row.appendChild(el('td', i < 2 || typeof v === 'number' ? { 'class': 'num' } :
								   { title: v }, v));
					});
					row.onclick = function () { find(r.method || r.name); };
					t.appendChild(row);
				});
				if (!list.length) {
					var none = el('tr');
					none.appendChild(el('td', { colspan: head.length }, 'none'));
					t.appendChild(none);
				}
			}
			rows('sum-methods', ['Samples', 'Share', 'Gens', 'Method'], S.methods.slice(0, 6), function (r) {
				return [r.samples, r.pct.toFixed(2) + '%', r.gens, r.name];
			});
			/* The lines of compiled or interpreted methods: the program's own (the table
			 * further down has every line). */
			var own = D.lines.filter(function (r) { return r.code; });
			rows('sum-lines', ['Samples', 'Share', 'Line', 'Method'], own.slice(0, 6), function (r) {
				return [r.samples, r.pct.toFixed(2) + '%', r.line, r.method];
			});
			$('sum-lines-note').textContent = noLineNote();
		}

		$('title').textContent = D.title;
		$('desc').textContent = D.desc;
		/* The first screen first: the summary and the flame graph; the timeline, below them,
		 * right after. */
		summary();
		use(FWD);
		/* For tests and the console: where a frame of that name is drawn (CSS px in the canvas:
		 * its centre, its width, and the top of its row). */
		function where(nm) {
			for (var i = 0; i < T.c.length; i++) {
				if (name(i) !== nm || !visible(i)) continue;
				var g = geometry(i);
				if (g[1] >= 4) return { x: g[0] + g[1] / 2, y: T.d[i] * ROW + ROW / 2,
							w: g[1], top: T.d[i] * ROW, h: ROW - 1 };
			}
			return null;
		}
		/* The largest change of share in points (0 without --diff), for tests. */
		function maxChange() {
			var m = 0;
			for (var i = 0; D.diff && i < T.c.length; i++) m = Math.max(m, Math.abs(T.p[i]) / 100);
			return m;
		}
		/* The same over the frames drawn at least 2 px wide: what a screenshot can show. */
		function maxDrawnChange() {
			var m = 0;
			for (var i = 0; D.diff && i < T.c.length; i++)
				if (visible(i) && geometry(i)[1] >= 2) m = Math.max(m, Math.abs(T.p[i]) / 100);
			return m;
		}
		/* The widest frame of the first level (a command), where it is drawn: for tests. */
		function widest() {
			var best = -1;
			for (var i = 1; i < T.c.length; i++)
				if (T.d[i] === 1 && T.n[i] >= 0 && (best < 0 || T.c[i] > T.c[best])) best = i;
			if (best < 0) return null;
			var g = geometry(best);
			return { name: name(best), samples: T.c[best], x: g[0] + g[1] / 2, y: ROW + ROW / 2 };
		}
		window.jitprof = { search: search, zoom: zoom, where: where, maxChange: maxChange, widest: widest,
				   maxDrawnChange: maxDrawnChange,
				   nodes: function () { return T.c.length; },
				   /* the tabs' events, the one shown, a switch, its total weight and top row */
				   tabs: tabs, tab: function () { return current; }, showTab: showTab,
				   total: function () { return T.c[0]; },
				   top: function () { return D.top.rows[0] || null; } };
		setTimeout(function () {
			if (mine !== renders) return;
			timeline();
			document.body.setAttribute('data-ready', '1');
		}, 0);
	}
	showTab(0);
})();
