// chromium.js - what the browser checks share: headless Chromium (/usr/bin/chromium or
// $CHROMIUM) launched with a fresh profile and nothing of its own on the network, and the
// pixel statistics of a screenshot (decoded by the browser itself: no image library).
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const puppeteer = require('puppeteer-core');

// Runs fn(browser, profileDir) and always closes the browser and removes its profile.
async function withChromium(fn, extraArgs = []) {
	const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'jitprof-chromium-'));
	const browser = await puppeteer.launch({
		executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
		headless: true,
		args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
		       '--disable-component-update', '--disable-sync', '--no-first-run',
		       '--user-data-dir=' + path.join(profile, 'p'), ...extraArgs],
	});
	try {
		return await fn(browser, profile);
	} finally {
		await browser.close();
		fs.rmSync(profile, { recursive: true, force: true });
	}
}

// Share of sampled pixels unlike bg ([r,g,b]; default: the bottom-right pixel), distinct
// colours, and pure-magenta (search highlight) pixels of the PNG file png; band ({ top, h } in
// image pixels) limits the count to those rows.
async function pixelStats(page, png, bg, band) {
	const b64 = fs.readFileSync(png).toString('base64');
	return page.evaluate(async (data, bg, band) => {
		const img = new Image();
		img.src = 'data:image/png;base64,' + data;
		await img.decode();
		const c = document.createElementNS('http://www.w3.org/1999/xhtml', 'canvas');
		c.width = img.width;
		c.height = img.height;
		const x = c.getContext('2d');
		x.drawImage(img, 0, 0);
		const all = x.getImageData(0, 0, c.width, c.height).data;
		const ref = bg || [all[all.length - 4], all[all.length - 3], all[all.length - 2]];
		const d = band ? x.getImageData(0, band.top, c.width, band.h).data : all;
		let other = 0, magenta = 0;
		const colours = new Set();
		for (let i = 0; i < d.length; i += 16) {
			if (Math.abs(d[i] - ref[0]) + Math.abs(d[i + 1] - ref[1]) + Math.abs(d[i + 2] - ref[2]) > 30)
				other++;
			if (d[i] === 230 && d[i + 1] === 0 && d[i + 2] === 230) magenta++;
			colours.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
		}
		return { nonBackground: other / (d.length / 16), colours: colours.size, magenta };
	}, b64, bg || null, band || null);
}

module.exports = { withChromium, pixelStats };
