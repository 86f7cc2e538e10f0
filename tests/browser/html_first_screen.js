// html_first_screen.js HTML SHOT [RUNS] - what `jitprof report --html`'s page shows in its
// first screen (1366x768, no scrolling) in headless Chromium (puppeteer-core): the summary's
// text, its hottest methods' rows, the warnings and the section links, each only when it lies
// inside the viewport; then the tooltip a hover over the flame graph's widest named frame and
// over the first timeline lane shows; the widest leaf function after Invert. The time from navigation to the flame graph drawn
// (best of RUNS loads, default 1). Saves the first screen as SHOT and prints one JSON line;
// tests/e2e/report_views_html.c judges it.
'use strict';
const path = require('path');
const { withChromium } = require('./chromium');

const [html, shot, runs] = process.argv.slice(2);

withChromium(async (browser) => {
	const out = { errors: [] };
	const page = await browser.newPage();
	await page.setViewport({ width: 1366, height: 768 });
	page.on('pageerror', (e) => out.errors.push(String(e)));
	out.loadMs = out.readyMs = Infinity;
	for (let i = 0; i < Math.max(1, Number(runs) || 1); i++) {
		const t0 = Date.now();
		await page.goto('file://' + path.resolve(html));
		await page.waitForSelector('#flame[data-drawn]', { timeout: 20000 });
		out.loadMs = Math.min(out.loadMs, Date.now() - t0);
		await page.waitForSelector('body[data-ready="1"]', { timeout: 20000 });
		out.readyMs = Math.min(out.readyMs, Date.now() - t0);
	}
	await page.screenshot({ path: shot });
	out.nodes = await page.evaluate(() => window.jitprof.nodes());
	// Text of the elements that lie wholly inside the first screen.
	const seen = (sel) => page.$$eval(sel, (es) => es.filter((e) => {
		const r = e.getBoundingClientRect();
		return r.width > 0 && r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight &&
			getComputedStyle(e).visibility !== 'hidden';
	}).map((e) => e.textContent));
	out.profiled = (await seen('#profiled')).join('');
	out.methods = await page.$$eval('#sum-methods tr', (rs) => rs.slice(1).filter((r) => {
		const b = r.getBoundingClientRect();
		return b.height > 0 && b.bottom <= window.innerHeight;
	}).map((r) => Array.from(r.cells).map((c) => c.textContent)));
	// The full name, not the cut one the cell's width shows: the row says what it holds.
	out.warnings = await seen('#warnings li');
	out.links = await seen('#links a');
	out.flameTop = await page.$eval('#flame', (c) => c.getBoundingClientRect().top);
	// Hover: the widest named frame below the root, at its centre.
	const f = await page.evaluate(() => (window.jitprof.widest ? window.jitprof.widest() : null));
	out.hovered = f ? f.name : null;
	if (f && await page.$('#tip')) {
		// Its top 200 px down the window: clear of the sticky bar of links.
		await page.$eval('#flame', (c) => window.scrollTo(0, c.getBoundingClientRect().top +
								  window.scrollY - 200));
		const box = await (await page.$('#flame')).boundingBox();
		await page.mouse.move(box.x + f.x, box.y + f.y);
		out.tip = await page.$eval('#tip', (t) => (getComputedStyle(t).display !== 'none' ?
			t.textContent : ''));
	}
	const lane = await page.$('.lane rect');
	if (lane && await page.$('#tip')) {
		await page.$eval('.lane rect', (l) => window.scrollTo(0, l.getBoundingClientRect().top +
								    window.scrollY - 200));
		const b = await lane.boundingBox();
		await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2);
		out.laneTip = await page.$eval('#tip', (t) => (getComputedStyle(t).display !== 'none' ?
			t.textContent : ''));
	}
	// Invert: the callers' tree the page builds, its widest first level a leaf function.
	await page.click('#invert');
	out.inverted = await page.evaluate(() => ({ nodes: window.jitprof.nodes(),
		widest: window.jitprof.widest(), drawn: document.getElementById('flame').getAttribute('data-drawn') }));
	console.log(JSON.stringify(out));
}).catch((e) => { console.error(e); process.exit(1); });
