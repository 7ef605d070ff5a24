// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { parseLocation, rememberedParams, useUrl } from './url.ts';

describe('url store', () => {
  it('remembers the last parameters of each view, so its tab returns to the run and step it showed', () => {
    const { navigate, setParams } = useUrl.getState();
    navigate('run', { run: 'r1' });
    setParams({ step: '7' });
    navigate('engines');
    expect(rememberedParams('run')).toEqual({ run: 'r1', step: '7' });
    expect(rememberedParams('compare')).toEqual({});
    navigate('run', rememberedParams('run'));
    expect(location.search).toBe('?run=r1&step=7');
  });

  it('Back restores the view and what it showed', () => {
    const { navigate } = useUrl.getState();
    navigate('compare', { a: 'x', b: 'y' });
    navigate('library');
    history.back();
    return new Promise<void>((done) => {
      window.addEventListener(
        'popstate',
        () => {
          expect(useUrl.getState()).toMatchObject({ view: 'compare', params: { a: 'x', b: 'y' } });
          expect(rememberedParams('compare')).toEqual({ a: 'x', b: 'y' });
          done();
        },
        { once: true },
      );
    });
  });

  it('a link naming samples and a compare pair keeps every parameter', () => {
    expect(parseLocation('?samples=1&view=compare&a=p&b=q')).toMatchObject({ view: 'compare', params: { samples: '1', a: 'p', b: 'q' } });
  });
});
