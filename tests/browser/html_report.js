// html_report.js HTML OUTDIR SEARCH ZOOM METHOD - drives `jitprof report --html`'s page in
// headless Chromium (puppeteer-core, /usr/bin/chromium or $CHROMIUM): opens it, searches SEARCH,
// clicks the frame named ZOOM, counts the timeline lanes of METHOD, saves screenshots in
// OUTDIR and prints what it saw as one JSON line; tests/e2e/report_views_html.c judges it.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const puppeteer = require('puppeteer-core');

const [html, outdir, search, zoomName, method] = process.argv.slice(2);

// Share of pixels unlike the page background, and distinct colours, of a PNG (decoded by
// the browser itself: no image library needed).
async function pixelStats(page, png) {
	const b64 = fs.readFileSync(png).toString('base64');
	return page.evaluate(async (data) => {
		const img = new Image();
		img.src = 'data:image/png;base64,' + data;
		await img.decode();
		const c = document.createElement('canvas');
		c.width = img.width;
		c.height = img.height;
		const x = c.getContext('2d');
		x.drawImage(img, 0, 0);
		const d = x.getImageData(0, 0, c.width, c.height).data;
		const bg = [d[d.length - 4], d[d.length - 3], d[d.length - 2]];
		let other = 0, magenta = 0;
		const colours = new Set();
		for (let i = 0; i < d.length; i += 16) {
			if (Math.abs(d[i] - bg[0]) + Math.abs(d[i + 1] - bg[1]) + Math.abs(d[i + 2] - bg[2]) > 30)
				other++;
			if (d[i] === 230 && d[i + 1] === 0 && d[i + 2] === 230) magenta++;
			colours.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
		}
		return { nonBackground: other / (d.length / 16), colours: colours.size, magenta };
	}, b64);
}

(async () => {
	const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'jitprof-chromium-'));
	const browser = await puppeteer.launch({
		executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
		headless: true,
		args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
		       '--disable-component-update', '--disable-sync', '--no-first-run',
		       '--user-data-dir=' + profile],
	});
	const out = {};
	try {
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
			const box = await flame.boundingBox();
			await page.mouse.click(box.x + at.x, box.y + at.y);
			out.zoom = await page.$eval('#flame', (c) => c.getAttribute('data-zoom'));
			out.details = await page.$eval('#details', (e) => e.textContent);
			await flame.screenshot({ path: shot('html-zoom.png') });
			out.zoomShot = await pixelStats(page, shot('html-zoom.png'));
		}
		out.lanes = await page.$$eval('.method', (ms, m) => {
			const d = ms.find((x) => x.getAttribute('data-method') === m);
			return d ? d.querySelectorAll('.lane').length : -1;
		}, method);
		const tl = await page.$('#timeline');
		await tl.screenshot({ path: shot('html-timeline.png') });
		out.timeline = await pixelStats(page, shot('html-timeline.png'));
		out.errors = errors;
	} finally {
		await browser.close();
		fs.rmSync(profile, { recursive: true, force: true });
	}
	console.log(JSON.stringify(out));
})().catch((e) => { console.error(e); process.exit(1); });
