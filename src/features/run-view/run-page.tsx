export function RunPage() {
  return <p className="p-4">Run</p>;
}
