// The URL of the token counter's table, an asset of the build (scripts/o200k-table-asset.ts, ADR 0070), loaded by
// token-table.ts.
declare module 'virtual:o200k-table' {
  const url: string;
  export default url;
}
