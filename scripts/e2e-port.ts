// The port the e2e servers listen on. Under CI Playwright will not reuse a server, so each run draws one; Chromium
// refuses to load pages from the ports of its restricted list (net/base/port_util.cc, ERR_UNSAFE_PORT), and the ranges
// drawn from hold two of them (4190 sieve, 6000 X11): a CI run whose draw fell on one failed its first navigation.
// Live OTLP runs stream to every page their server has open, so the spec that exports spans gets a server of its own,
// LIVE_OFFSET above (clear of 5173, where `npm start` serves).

export const LIVE_OFFSET = 1500;
export const FIRST_PORT = 4173;
export const PORT_CHOICES = 700;

/** Chromium's restricted ports from 1024 up (the list's lower ones need no care here). */
export const CHROMIUM_UNSAFE_PORTS: ReadonlySet<number> = new Set([
  1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

export function portsAreSafe(port: number): boolean {
  return !CHROMIUM_UNSAFE_PORTS.has(port) && !CHROMIUM_UNSAFE_PORTS.has(port + LIVE_OFFSET);
}

/** A port of the range whose live twin is safe too; `random` in [0, 1). */
export function pickE2ePort(random: () => number = Math.random): number {
  for (;;) {
    const port = FIRST_PORT + Math.floor(random() * PORT_CHOICES);
    if (portsAreSafe(port)) return port;
  }
}
