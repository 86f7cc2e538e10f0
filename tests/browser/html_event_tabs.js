// html_event_tabs.js HTML SHOTPREFIX - the tabs of `jitprof report --html`'s page for a
// recording of several events, in headless Chromium (puppeteer-core): clicks each tab's
// button in turn and, once the tab is drawn, notes its event, the flame graph's total weight
// (its root), the top table's first row, the summary's text and its first method (with the
// methods table's heading), and saves the first screen as
// SHOTPREFIX-EVENT.png. Prints one JSON line; tests/e2e/report_views_html_tabs.c judges it.
'use strict';
const path = require('path');
const { withChromium } = require('./chromium');

const [html, prefix] = process.argv.slice(2);

withChromium(async (browser) => {
	const out = { errors: [], tabs: [] };
	const page = await browser.newPage();
	await page.setViewport({ width: 1366, height: 768 });
	page.on('pageerror', (e) => out.errors.push(String(e)));
	await page.goto('file://' + path.resolve(html));
	await page.waitForSelector('body[data-ready="1"]', { timeout: 20000 });
	const events = await page.evaluate(() => window.jitprof.tabs());
	out.buttons = await page.$$eval('#tabs .tab', (bs) => bs.map((b) => b.textContent));
	// The last first: every switch draws the page anew (and back to the first at the end).
	for (const i of [...events.keys()].reverse().concat([0])) {
		await page.click('#tabs .tab:nth-child(' + (i + 1) + ')');
		await page.waitForSelector('body[data-ready="1"]', { timeout: 20000 });
		const t = await page.evaluate(() => ({
			tab: window.jitprof.tab(), total: window.jitprof.total(),
			top: window.jitprof.top(), drawn: Number(document.getElementById('flame')
				.getAttribute('data-drawn')),
			profiled: document.getElementById('profiled').textContent,
			on: document.querySelector('#tabs .tab.on').getAttribute('data-event'),
			method: (document.querySelector('#sum-methods tr:nth-child(2) td:last-child') ||
				 {}).textContent || null,
			methods_head: document.getElementById('sum-methods-h').textContent }));
		t.event = events[i];
		await page.screenshot({ path: prefix + '-' + events[i] + '.png' });
		out.tabs.push(t);
	}
	console.log(JSON.stringify(out));
}).catch((e) => { console.error(e); process.exit(1); });
