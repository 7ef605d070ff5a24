// Paste a trace as text: for a snippet copied from a log or a chat, where there is no file to pick.
import { useId, useState } from 'react';
import { Button } from '../../ui/button.tsx';
import { openSources, textSource } from './open-files.ts';

export function PastePanel({ onClose }: { onClose(): void }) {
  const [text, setText] = useState('');
  const [name, setName] = useState('pasted.json');
  const textId = useId();
  const nameId = useId();
  const submit = async () => {
    const trimmed = name.trim() || 'pasted.json';
    onClose();
    await openSources([textSource(text, trimmed)]);
  };
  return (
    <form
      className="flex flex-col gap-2 rounded-lg border border-indigo-200 bg-white p-3 shadow-sm"
      aria-label="Paste a trace"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
      onKeyDown={(e) => {
        if (e.key === 'Escape') onClose();
      }}
    >
      <label htmlFor={textId} className="text-sm font-medium text-slate-800">
        Paste a trace (JSON or JSON Lines, any supported format)
      </label>
      <textarea
        id={textId}
        autoFocus
        value={text}
        onChange={(e) => setText(e.target.value)}
        rows={8}
        spellCheck={false}
        className="rounded border border-slate-300 p-2 font-mono text-xs focus:border-indigo-500 focus:outline-none"
        data-testid="paste-text"
      />
      <div className="flex flex-wrap items-center gap-2">
        <label htmlFor={nameId} className="text-sm text-slate-700">
          Name
        </label>
        <input
          id={nameId}
          value={name}
          onChange={(e) => setName(e.target.value)}
          className="rounded border border-slate-300 px-2 py-1 font-mono text-xs focus:border-indigo-500 focus:outline-none"
        />
        <span className="flex-1" />
        <Button variant="ghost" onClick={onClose}>
          Cancel
        </Button>
        <Button variant="primary" type="submit" disabled={text.trim() === ''}>
          Open pasted text
        </Button>
      </div>
    </form>
  );
}
