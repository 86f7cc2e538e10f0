// speedscope_import.js FILE OUTDIR - opens FILE in speedscope's own page (npm `speedscope`,
// dist/release/index.html, loaded as its command line does: #localProfilePath= a script that
// calls speedscope.loadFileFromBase64) in headless Chromium; prints one JSON line: the page
// title, alerts, script errors, and a screenshot's pixel statistics (OUTDIR/speedscope.png).
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const puppeteer = require('puppeteer-core');

const [file, outdir] = process.argv.slice(2);

(async () => {
	const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'jitprof-speedscope-'));
	const js = path.join(tmp, 'profile.js');
	fs.writeFileSync(js, `speedscope.loadFileFromBase64(${JSON.stringify(path.basename(file))}, ` +
		`${JSON.stringify(fs.readFileSync(file).toString('base64'))})`);
	const index = require.resolve('speedscope/dist/release/index.html');
	const browser = await puppeteer.launch({
		executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
		headless: true,
		args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
		       '--disable-component-update', '--disable-sync', '--no-first-run',
		       '--allow-file-access-from-files', '--user-data-dir=' + path.join(tmp, 'profile')],
	});
	const out = { alerts: [], errors: [] };
	try {
		const page = await browser.newPage();
		await page.setViewport({ width: 1280, height: 800 });
		page.on('dialog', async (d) => { out.alerts.push(d.message()); await d.dismiss(); });
		page.on('pageerror', (e) => out.errors.push(String(e)));
		page.on('console', (m) => { if (m.type() === 'error') out.errors.push(m.text()); });
		await page.goto('file://' + index + '#localProfilePath=' + js);
		// speedscope names the tab after the profile once it is imported.
		await page.waitForFunction(() => / - speedscope$/.test(document.title), { timeout: 20000 })
			.catch(() => {});
		await new Promise((r) => setTimeout(r, 500));
		out.title = await page.title();
		out.text = (await page.evaluate(() => document.body.innerText)).slice(0, 300);
		await page.screenshot({ path: path.join(outdir, 'speedscope.png') });
	} finally {
		await browser.close();
		fs.rmSync(tmp, { recursive: true, force: true });
	}
	console.log(JSON.stringify(out));
})().catch((e) => { console.error(e); process.exit(1); });
