// speedscope_import.js FILE OUTDIR - opens FILE in speedscope's own page (npm `speedscope`,
// dist/release/index.html, loaded as its command line does: #localProfilePath= a script that
// calls speedscope.loadFileFromBase64) in headless Chromium; prints one JSON line: the page
// title, alerts, script errors, and a screenshot's pixel statistics (OUTDIR/speedscope.png).
'use strict';
const fs = require('fs');
const path = require('path');
const { withChromium } = require('./chromium');

const [file, outdir] = process.argv.slice(2);

withChromium(async (browser, tmp) => {
	const js = path.join(tmp, 'profile.js');
	fs.writeFileSync(js, `speedscope.loadFileFromBase64(${JSON.stringify(path.basename(file))}, ` +
		`${JSON.stringify(fs.readFileSync(file).toString('base64'))})`);
	const index = require.resolve('speedscope/dist/release/index.html');
	const out = { alerts: [], errors: [] };
	{
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
	}
	console.log(JSON.stringify(out));
}, ['--allow-file-access-from-files']).catch((e) => { console.error(e); process.exit(1); });
