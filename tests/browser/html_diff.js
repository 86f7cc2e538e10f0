// html_diff.js HTML OUTDIR SHOT - opens a differential `jitprof report --html --diff` page in
// headless Chromium (puppeteer-core, see chromium.js), saves the flame graph as OUTDIR/SHOT
// and prints one JSON line: script errors, network requests, the legend's text, the largest
// change the page holds (window.jitprof.maxChange) and how many pixels of the
// flame graph are red (grew), blue (shrank) or white (unchanged), as the diff colours are.
// tests/e2e/report_views_html.c judges it.
'use strict';
const fs = require('fs');
const path = require('path');
const { withChromium } = require('./chromium');

const [html, outdir, shotName] = process.argv.slice(2);

withChromium(async (browser) => {
	const page = await browser.newPage();
	await page.setViewport({ width: 1280, height: 900 });
	const out = { network: [], errors: [] };
	page.on('request', (r) => { if (!/^(file|data):/.test(r.url())) out.network.push(r.url()); });
	page.on('pageerror', (e) => out.errors.push(String(e)));
	await page.goto('file://' + path.resolve(html));
	await page.waitForSelector('body[data-ready="1"]', { timeout: 20000 });
	out.legend = await page.$eval('#legend', (e) => e.textContent);
	out.mode = await page.$eval('#flame-mode', (e) => e.textContent);
	out.maxChange = await page.evaluate(() => window.jitprof.maxChange());
	out.maxDrawnChange = await page.evaluate(() => window.jitprof.maxDrawnChange());
	const flame = await page.$('#flame');
	const shot = path.join(outdir, shotName);
	await flame.screenshot({ path: shot });
	const b64 = fs.readFileSync(shot).toString('base64');
	Object.assign(out, await page.evaluate(async (data) => {
		const img = new Image();
		img.src = 'data:image/png;base64,' + data;
		await img.decode();
		const c = document.createElement('canvas');
		c.width = img.width;
		c.height = img.height;
		const x = c.getContext('2d');
		x.drawImage(img, 0, 0);
		const d = x.getImageData(0, 0, c.width, c.height).data;
		let red = 0, blue = 0, white = 0;
		// Every pixel: a frame that changed most may be a few pixels wide, its colour
		// blended into its border's grey at the edges, so a pixel counts as red (blue)
		// when that channel stands 15 levels above both others (a change of 0.3 points at
		// full colour at 5), whatever its brightness; greys, black text and white do not.
		for (let i = 0; i < d.length; i += 4) {
			const [r, g, b] = [d[i], d[i + 1], d[i + 2]];
			if (r === 255 && g === 255 && b === 255) white++;
			else if (r - Math.max(g, b) >= 15) red++;
			else if (b - Math.max(r, g) >= 15) blue++;
		}
		return { red, blue, white, pixels: d.length / 4 };
	}, b64));
	console.log(JSON.stringify(out));
}).catch((e) => { console.error(e); process.exit(1); });
