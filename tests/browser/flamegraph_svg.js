// flamegraph_svg.js SVG OUTDIR [SEARCH] - opens `jitprof report --flamegraph`'s SVG in headless
// Chromium (puppeteer-core) in a 1200x600 window, as a user would open the file, and prints one
// JSON line: the page height, how far the first screen is scrolled, where the header is pinned,
// script errors, the pixel statistics of that first screen (OUTDIR/flamegraph.png), and with
// SEARCH what the search says of it, typed as is ("matched").
'use strict';
const path = require('path');
const { withChromium, pixelStats } = require('./chromium');

const [svg, outdir, search] = process.argv.slice(2);

withChromium(async (browser) => {
	const out = { errors: [] };
	const page = await browser.newPage();
	await page.setViewport({ width: 1200, height: 600 });
	page.on('pageerror', (e) => out.errors.push(String(e)));
	await page.goto('file://' + path.resolve(svg));
	await new Promise((r) => setTimeout(r, 300));
	Object.assign(out, await page.evaluate(() => ({
		height: document.documentElement.getBoundingClientRect().height,
		scrolled: window.pageYOffset,
		pinned: document.getElementById('hdr').getAttribute('transform'),
	})));
	const png = path.join(outdir, 'flamegraph.png');
	await page.screenshot({ path: png });
	out.screen = await pixelStats(page, png, [248, 248, 240]);
	if (search !== undefined)
		out.matched = await page.evaluate((t) => {
			find(t);	// what the Search prompt calls with the text typed
			return document.getElementById('matched').textContent;
		}, search);
	console.log(JSON.stringify(out));
}).catch((e) => { console.error(e); process.exit(1); });
