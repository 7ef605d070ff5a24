import { chromium } from '@playwright/test';
const file = process.argv[2];
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium' });
for (let rep = 0; rep < 3; rep++) {
const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
await page.addInitScript(() => { localStorage.setItem('mas-replay:visited', 'e2e'); window.__lt = []; new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__lt.push(Math.round(e.duration)); }).observe({ type: 'longtask' }); });
await page.goto('http://127.0.0.1:4391/');
await page.getByTestId('open-file-input').setInputFiles(file);
const row = page.getByTestId('run-row').first();
await row.waitFor({ timeout: 60000 });
await page.waitForTimeout(1500);
await page.evaluate(() => window.__lt.splice(0));
await row.getByRole('button').first().click();
await page.getByTestId('run-view').waitFor();
await page.waitForTimeout(1000);
console.log(file.split('/').slice(-2).join('/'), JSON.stringify(await page.evaluate(() => window.__lt)));
await page.evaluate(() => indexedDB.databases().then((d) => Promise.all(d.map((x) => new Promise((r) => { const q = indexedDB.deleteDatabase(x.name); q.onsuccess = q.onerror = q.onblocked = r; })))));
await page.close();
}
await browser.close();
