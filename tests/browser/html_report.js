// html_report.js HTML OUTDIR SEARCH ZOOM METHOD - drives `jitprof report --html`'s page in
// headless Chromium (puppeteer-core, /usr/bin/chromium or $CHROMIUM): opens it, searches SEARCH,
// clicks the frame named ZOOM, counts the timeline lanes of METHOD and reads how each ended,
// then searches METHOD as typed and its text up to '(' (what the search box shows for each),
// saves screenshots in OUTDIR and prints what it saw as one JSON line;
// tests/e2e/report_views_html.c judges it.
'use strict';
const path = require('path');
const { withChromium, pixelStats } = require('./chromium');

const [html, outdir, search, zoomName, method] = process.argv.slice(2);

withChromium(async (browser) => {
	const out = {};
	{
		const page = await browser.newPage();
		await page.setViewport({ width: 1280, height: 900 });
		const requests = [];
		page.on('request', (r) => { if (!r.url().startsWith('file:') && !r.url().startsWith('data:')) requests.push(r.url()); });
		const errors = [];
		page.on('pageerror', (e) => errors.push(String(e)));
		const t0 = Date.now();
		await page.goto('file://' + path.resolve(html));
		await page.waitForSelector('body[data-ready="1"]', { timeout: 20000 });
		out.loadMs = Date.now() - t0;
		out.network = requests;
		out.nodes = await page.evaluate(() => window.jitprof.nodes());
		out.drawn = Number(await page.$eval('#flame', (c) => c.getAttribute('data-drawn')));
		const shot = (name) => path.join(outdir, name);
		await page.screenshot({ path: shot('html-report.png') });
		out.page = await pixelStats(page, shot('html-report.png'));

		await page.type('#search', search);
		await page.keyboard.press('Enter');
		out.matched = await page.$eval('#matched', (e) => e.textContent);
		const flame = await page.$('#flame');
		await flame.screenshot({ path: shot('html-search.png') });
		out.search = await pixelStats(page, shot('html-search.png'));

		const at = await page.evaluate((n) => window.jitprof.where(n), zoomName);
		out.zoomFound = !!at;
		if (at) {
			// The frame in the window, clear of the sticky bar of links.
			await page.$eval('#flame', (c, y) => window.scrollTo(0, c.getBoundingClientRect().top +
				window.scrollY + y - 300), at.y);
			const box = await flame.boundingBox();
			await page.mouse.click(box.x + at.x, box.y + at.y);
			out.zoom = await page.$eval('#flame', (c) => c.getAttribute('data-zoom'));
			out.details = await page.$eval('#details', (e) => e.textContent);
			await flame.screenshot({ path: shot('html-zoom.png') });
			out.zoomShot = await pixelStats(page, shot('html-zoom.png'));
			// The zoomed frame: as wide as the canvas, its row drawn edge to edge (counted
			// against the shot's own background, the bottom-right pixel).
			const z = await page.evaluate((n) => window.jitprof.where(n), zoomName);
			out.zoomWidth = z ? z.w / box.width : 0;
			if (z) {
				const r = await page.evaluate(() => window.devicePixelRatio || 1);
				out.zoomRow = await pixelStats(page, shot('html-zoom.png'), null,
					{ top: Math.round(z.top * r), h: Math.floor(z.h * r) });
			}
		}
		out.lanes = await page.$$eval('.method', (ms, m) => {
			const d = ms.find((x) => x.getAttribute('data-method') === m);
			return d ? d.querySelectorAll('.lane').length : -1;
		}, method);
		// Each lane's end of activity: the marker's kind and the words beside it.
		out.ends = await page.$$eval('.method', (ms, m) => {
			const d = ms.find((x) => x.getAttribute('data-method') === m);
			return d ? Array.from(d.querySelectorAll('.lane')).map((l) => {
				const u = l.querySelector('.until'), w = l.querySelector('.why');
				return u ? u.getAttribute('data-ended') + ': ' + (w ? w.textContent : '') : '';
			}) : [];
		}, method);
		out.sources = await page.$eval('#timeline', (t) => {
			const p = t.querySelector('#timeline-sources');
			return p ? p.textContent : null;
		});
		const tl = await page.$('#timeline');
		await tl.screenshot({ path: shot('html-timeline.png') });
		out.timeline = await pixelStats(page, shot('html-timeline.png'));
		// Searching METHOD as typed (a Java name: $, dots, parentheses, brackets), then
		// its text up to the '(' (no valid regex): both are looked for as text.
		const typed = async (t) => {
			await page.$eval('#search', (e) => { e.value = ''; });
			await page.type('#search', t);
			await page.keyboard.press('Enter');
			return page.$eval('#matched', (e) => e.textContent);
		};
		out.typedMatched = await typed(method);
		out.unbalancedMatched = await typed(method.substring(0, method.indexOf('(') + 1));
		out.errors = errors;
	}
	console.log(JSON.stringify(out));
}).catch((e) => { console.error(e); process.exit(1); });
