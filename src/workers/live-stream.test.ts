import { describe, expect, it } from 'vitest';
import { streamRefusal } from './live-stream.ts';

describe('streamRefusal', () => {
  it('takes the receiver’s event stream, whatever the parameters of its type', async () => {
    expect(await streamRefusal(new Response('retry: 1000\n\n', { headers: { 'content-type': 'text/event-stream' } }))).toBeUndefined();
    expect(await streamRefusal(new Response('', { headers: { 'content-type': 'Text/Event-Stream; charset=utf-8' } }))).toBeUndefined();
  });

  it('refuses a static host’s page answered with 200, and cancels its body', async () => {
    const res = new Response('<!doctype html><html></html>', { headers: { 'content-type': 'text/html' } });
    expect(await streamRefusal(res)).toBe('200, but text/html rather than an event stream: no live receiver answers here');
    expect(res.bodyUsed || res.body?.locked).toBeTruthy();
  });

  it('refuses an answer with no content type or no body', async () => {
    expect(await streamRefusal(new Response('x'))).toMatch(/^200, but text\/plain/);
    const bare = new Response(null, { status: 200 });
    expect(await streamRefusal(bare)).toBe('200, but no content type rather than an event stream: no live receiver answers here');
  });

  it('says the status and the server’s own words when it refuses', async () => {
    expect(await streamRefusal(new Response('The live stream needs the bearer token.\n', { status: 401 }))).toBe('401 The live stream needs the bearer token.');
    expect(await streamRefusal(new Response('', { status: 404 }))).toBe('404');
  });
});
