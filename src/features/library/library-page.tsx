export function LibraryPage() {
  return <p className="p-4">Library</p>;
}
