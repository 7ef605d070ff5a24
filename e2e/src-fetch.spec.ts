// `?src=` bodies (issue 17, item 6): a link naming another origin asks first and fetches nothing until the reader
// agrees; a slow body shows its progress against Content-Length and Cancel stops it; a Content-Length over the
// 400 MB limit is refused at once. The other origin is a small server started here on 127.0.0.1 (another port).
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { expect, test } from '@playwright/test';
import { fileRuns, openStudio, pixelOf } from './fixtures.ts';

const SAMPLE = readFileSync(resolve(import.meta.dirname, '../public/samples/simulated-group-chat.session.json'));

let server: Server;
let origin = '';
const requests: string[] = [];
let slowClosed = false;

test.beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push(req.url ?? '');
    res.setHeader('Access-Control-Allow-Origin', '*');
    if (req.url === '/group-chat.session.json') {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': SAMPLE.length });
      res.end(SAMPLE);
    } else if (req.url === '/slow.json') {
      // 50 MB announced, 64 KB every 100 ms: slow enough to watch and cancel.
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': 50 * 1048576 });
      res.write('[');
      const timer = setInterval(() => res.write(Buffer.alloc(65536, 0x20)), 100);
      res.on('close', () => {
        clearInterval(timer);
        slowClosed = true;
      });
    } else if (req.url === '/unsized.json') {
      // No Content-Length (chunked): the bar cannot know how far it is.
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('[');
      const timer = setInterval(() => res.write(Buffer.alloc(65536, 0x20)), 100);
      res.on('close', () => clearInterval(timer));
    } else if (req.url === '/huge.json') {
      // 10 GB announced; the body never comes.
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': 10 * 1024 ** 3 });
      res.write('[');
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

test.afterAll(() => {
  server.closeAllConnections();
  server.close();
});

test('a link to another origin asks first, then loads', async ({ page }) => {
  const before = requests.length;
  await openStudio(page, `/?src=${encodeURIComponent(`${origin}/group-chat.session.json`)}`);
  const confirm = page.getByTestId('src-confirm');
  await expect(confirm).toContainText(`Load a trace from ${origin}?`);
  await expect(confirm).toContainText('It is fetched from that host and stored in this browser.');
  await page.waitForTimeout(300);
  expect(requests.length).toBe(before); // nothing fetched before the answer
  await confirm.getByRole('button', { name: 'Load it' }).click();
  await expect(fileRuns(page, 'group-chat.session.json')).toHaveCount(1);
  expect(requests.slice(before)).toEqual(['/group-chat.session.json']);

  // "Don't load" drops the link's source and fetches nothing.
  const again = requests.length;
  await page.goto(`/?src=${encodeURIComponent(`${origin}/other.json`)}`);
  await page.getByTestId('src-confirm').getByRole('button', { name: 'Don’t load' }).click();
  await expect(page.getByTestId('src-confirm')).toHaveCount(0);
  await expect(page).not.toHaveURL(/src=/);
  expect(requests.length).toBe(again);
});

test('a slow body shows its progress and Cancel stops it', async ({ page }) => {
  slowClosed = false;
  await openStudio(page, `/?src=${encodeURIComponent(`${origin}/slow.json`)}`);
  await page.getByTestId('src-confirm').getByRole('button', { name: 'Load it' }).click();
  const progress = page.getByTestId('src-progress');
  await expect(progress).toContainText(/of 50 MB/);
  await expect(progress.getByRole('status')).toContainText(/[1-9][0-9.]* MB of 50 MB|0\.[1-9] MB of 50 MB/);
  const bar = progress.getByRole('progressbar');
  await expect.poll(async () => Number(await bar.getAttribute('value'))).toBeGreaterThan(0);
  // Drawn in the studio's indigo (src/index.css), not the green a native bar given a height falls back to: the pixel
  // at the start of the value part is the colour of a swatch of indigo-600.
  const fraction = async () => Number(await bar.getAttribute('value')) / Number(await bar.getAttribute('max'));
  await expect.poll(fraction, { timeout: 20_000 }).toBeGreaterThan(0.04);
  await page.evaluate(() => {
    const swatch = document.body.appendChild(document.createElement('div'));
    swatch.dataset.testid = 'swatch';
    swatch.style.cssText = 'position:fixed;left:0;top:0;width:8px;height:8px;background:var(--color-indigo-600)';
  });
  const indigo = await pixelOf(page, page.getByTestId('swatch'), 4, 4);
  const box = (await bar.boundingBox())!;
  expect(await pixelOf(page, bar, 3, Math.floor(box.height / 2))).toBe(indigo);
  await progress.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByRole('status').filter({ hasText: `Stopped fetching ${origin}/slow.json` })).toBeVisible();
  await expect(page.getByTestId('src-progress')).toHaveCount(0);
  await expect.poll(() => slowClosed).toBe(true); // the connection was dropped, not read to the end
  await expect(page.getByTestId('library-file')).toHaveCount(0);
});

test('a body of unknown length shows a bar that moves while it comes, still when motion is reduced', async ({ page }) => {
  await openStudio(page, `/?src=${encodeURIComponent(`${origin}/unsized.json`)}`);
  await page.getByTestId('src-confirm').getByRole('button', { name: 'Load it' }).click();
  const progress = page.getByTestId('src-progress');
  await expect(progress.getByRole('status')).toContainText(/[0-9.]+ MB/);
  const bar = progress.getByRole('progressbar');
  await expect(bar).not.toHaveAttribute('value');
  // An indeterminate native bar with a height is drawn as an empty track that never moves; ours sweeps a band across.
  const sweep = () => bar.evaluate((el) => ({ animation: getComputedStyle(el).animationName, image: getComputedStyle(el).backgroundImage }));
  expect(await sweep()).toEqual({ animation: 'studio-progress-sweep', image: expect.stringMatching(/^linear-gradient/) });
  await page.emulateMedia({ reducedMotion: 'reduce' });
  expect(await sweep()).toEqual({ animation: 'none', image: expect.stringMatching(/^repeating-linear-gradient/) });
  await progress.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByTestId('src-progress')).toHaveCount(0);
});

test('a Content-Length over the limit is refused at once', async ({ page }) => {
  await openStudio(page, `/?src=${encodeURIComponent(`${origin}/huge.json`)}`);
  await page.getByTestId('src-confirm').getByRole('button', { name: 'Load it' }).click();
  await expect(page.getByRole('alert').filter({ hasText: `Could not fetch ${origin}/huge.json` })).toContainText(
    'the server announces 10,240 MB; the limit is 400 MB, so nothing was read',
    { timeout: 3000 },
  );
});
