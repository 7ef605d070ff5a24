// Run A and run B keep one colour each across every compare panel.
export const RUN_COLOR = { a: '#7c3aed', b: '#0d9488' } as const;
export const INTERVENTION_COLOR = '#f59e0b';
export const AXIS = '#475569';
export const GRID = '#e2e8f0';
export const FONT = 'ui-sans-serif, system-ui, sans-serif';
export const count = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en') : '—');
