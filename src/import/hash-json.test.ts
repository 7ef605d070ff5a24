import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hashText } from '../model/hash.ts';
import { hashJson, rememberJsonHash } from './hash-json.ts';

const same = (v: unknown) => expect(hashJson(v)).toBe(hashText(JSON.stringify(v) as string));

describe('hashJson', () => {
  it('is hashText of JSON.stringify for parsed documents of every shape', () => {
    const texts = [
      '{"question":"q","history":[{"content":"a","role":"assistant","name":"A"},{"content":null,"role":"user"}]}',
      '[]',
      '{}',
      '[{"a":[1,2,[3,{"b":"é\\u0000\\n\\"x"}]]},[],{},null,true,false,-0,1e300,0.1]',
      '{"2":"two","1":"one","b":{"__proto__":{"x":1},"constructor":2},"a":[{"toJSON":"not a function"}]}',
      '"a string"',
      '12.5',
      'null',
      '{"history":[],"chat_history":[[["deep"]]],"emoji":"🤖","lone":"\\ud800"}',
    ];
    for (const t of texts) same(JSON.parse(t));
  });

  it('is hashText of JSON.stringify for long lists (stringified in chunks), at and around a chunk’s length', () => {
    for (const n of [1, 1023, 1024, 1025, 2048, 3001]) {
      const history = Array.from({ length: n }, (_, i) => ({ content: `message ${i}`, role: 'assistant', name: `A${i % 3}` }));
      same({ question: 'q', history });
      same([{ history }, { history: history.slice(1) }]);
    }
    same({ history: Array.from({ length: 2500 }, (_, i) => (i % 7 === 0 ? undefined : i % 11 === 0 ? () => i : { content: i })) });
  });

  it('gives JSON.stringify’s text for values that are not from JSON.parse', () => {
    same({ a: undefined, b: () => 1, c: Symbol('s'), d: [undefined, () => 1, Symbol('s')], e: { f: undefined } });
    same({ toJSON: () => ({ replaced: true }) });
    same({ list: [{ toJSON: () => 'x' }], date: new Date(0) });
    expect(hashJson(undefined)).toBe(hashText('undefined'));
  });

  const SHARED = join(import.meta.dirname, '../../../shared/traces');
  it.skipIf(!existsSync(SHARED))(`is hashText of JSON.stringify for the shared traces${existsSync(SHARED) ? '' : ` (${SHARED} is absent: skipped)`}`, () => {
    const root = SHARED;
    let checked = 0;
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir).sort()) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (/\.json$/.test(name) && statSync(path).size < 5_000_000) {
          let value: unknown;
          try {
            value = JSON.parse(readFileSync(path, 'utf8'));
          } catch {
            continue;
          }
          same(value);
          checked++;
        }
      }
    };
    walk(root);
    expect(checked).toBeGreaterThan(20);
  });
});

describe('hashJson of a value read in pieces', () => {
  it('gives back the hash recorded as the value was read (rememberJsonHash), not one computed again', () => {
    const value = { history: [{ content: 'a' }] };
    const fresh = hashJson(value);
    // A marker no computation gives: the recorded hash is what is answered, for that object only.
    rememberJsonHash(value, 'recorded');
    expect(hashJson(value)).toBe('recorded');
    expect(hashJson({ history: [{ content: 'a' }] })).toBe(fresh);
  });
});
