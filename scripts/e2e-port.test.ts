import { describe, expect, it } from 'vitest';
import { CHROMIUM_UNSAFE_PORTS, FIRST_PORT, LIVE_OFFSET, PORT_CHOICES, pickE2ePort, portsAreSafe } from './e2e-port';

describe('e2e port', () => {
  it('never draws a port Chromium refuses, for the studio or its live twin', () => {
    let unsafeInRange = 0;
    for (let i = 0; i < PORT_CHOICES; i++) {
      // Each draw begins at port i; a refused port draws again, from the next port on.
      let draw = i;
      const port = pickE2ePort(() => (draw++ % PORT_CHOICES) / PORT_CHOICES);
      expect(CHROMIUM_UNSAFE_PORTS.has(port)).toBe(false);
      expect(CHROMIUM_UNSAFE_PORTS.has(port + LIVE_OFFSET)).toBe(false);
      if (!portsAreSafe(FIRST_PORT + i)) unsafeInRange++;
    }
    // The ranges do hold restricted ports (4190 and 6000 − 1500), so the check is not idle.
    expect(unsafeInRange).toBe(2);
  });
});
