// The "own words" check (issue 22; ../shared/papers/README.md): facts from the four papers carry over, their sentences
// do not. This module collects the text we ship (string literals and JSX text in src/, text files in public/, our
// markdown) and compares it with the papers two ways: a shared run of RUN_WORDS words, and a near paraphrase of one
// paper sentence (a similarity score over normalised sentences of at least MIN_SENTENCE_WORDS words).
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

export const RUN_WORDS = 8;
export const MIN_SENTENCE_WORDS = 8;
/**
 * A sentence scoring at or above this against one paper sentence is a near paraphrase (see `similarity`). The six
 * lines issue 22 found scored 0.62-0.80; sentences that share a paper's facts in our own words stay below 0.45.
 */
export const PARAPHRASE_THRESHOLD = 0.5;

/** One piece of our text and where it lives (1-based line). */
export interface OurText {
  file: string;
  line: number;
  text: string;
}

export interface PaperSentence {
  paper: string;
  text: string;
  shape: Shape;
}

export interface Finding {
  kind: 'run' | 'paraphrase';
  file: string;
  line: number;
  ours: string;
  paper: string;
  paperText: string;
  /** Run length in words for 'run', similarity for 'paraphrase'. */
  score: number;
}

// ---------------------------------------------------------------------------------------------------------------
// Normalising

/** Lower case, apostrophes dropped, markup and punctuation to spaces, split into words. */
export function words(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/<[^>]{0,80}>/g, ' ')
    .replace(/['’`]/g, '')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()
    .split(' ')
    .filter((w) => w.length > 0);
}

/** Sentences: split at . ! ? followed by a space, at line breaks, and at a label colon ("How to ask: …"). */
export function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+|(?<=:)\s+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

// Function words carry a sentence's shape but not its content; the score weighs content words (see `similarity`).
const FUNCTION_WORDS = new Set(
  (
    'a an the and or but if then else when while of to in on at by for with from into onto as is are was were be been ' +
    'being it its this that these those there their they them he she we you i our your his her not no nor so than ' +
    'too very can could should would will shall may might must do does did done has have had having which who whom ' +
    'what where how why all any each every some one two only also just about over under up down out off again more ' +
    'most other such own same s'
  ).split(' '),
);

/** A crude stem so that "replaces", "replaced" and "replacing" meet. */
export function stem(word: string): string {
  if (word.length <= 4) return word;
  for (const suffix of ['ing', 'ed', 'es', 's', 'ly']) {
    if (word.endsWith(suffix) && word.length - suffix.length >= 4) return word.slice(0, -suffix.length);
  }
  return word;
}

const contentStems = (ws: readonly string[]): Set<string> => new Set(ws.filter((w) => !FUNCTION_WORDS.has(w)).map(stem));

const bigrams = (ws: readonly string[]): Set<string> => {
  const out = new Set<string>();
  for (let i = 0; i + 1 < ws.length; i++) out.add(`${stem(ws[i])} ${stem(ws[i + 1])}`);
  return out;
};

const overlap = (a: ReadonlySet<string>, b: ReadonlySet<string>): number => {
  let n = 0;
  for (const x of a) if (b.has(x)) n++;
  return n;
};

/** A sentence's stemmed content words and stemmed word bigrams, the two things `similarity` compares. */
export interface Shape {
  content: Set<string>;
  bigrams: Set<string>;
}

export const shapeOf = (ws: readonly string[]): Shape => ({ content: contentStems(ws), bigrams: bigrams(ws) });

const dice = (a: ReadonlySet<string>, b: ReadonlySet<string>) => (a.size + b.size === 0 ? 0 : (2 * overlap(a, b)) / (a.size + b.size));

/**
 * How closely one sentence follows another (0..1): the mean of two Dice coefficients, one over stemmed content words
 * (the same things said) and one over stemmed word bigrams (said in the same order and phrasing). Sharing facts alone
 * scores on the first half only; following a sentence's wording scores on both.
 */
export function similarity(a: Shape, b: Shape): number {
  return (dice(a.content, b.content) + dice(a.bigrams, b.bigrams)) / 2;
}

// ---------------------------------------------------------------------------------------------------------------
// Allowed facts

/**
 * Phrases that are facts rather than wording (field names, labels, the papers' own short terms), one per line of the
 * list kept beside the test; `#` starts a comment. They are masked on both sides before comparing: a masked word
 * ends a run and does not count towards a paraphrase.
 */
export function readAllowed(text: string): string[][] {
  return text
    .split('\n')
    .map((l) => l.replace(/#.*$/, '').trim())
    .filter((l) => l.length > 0)
    .map(words)
    .filter((ws) => ws.length > 0);
}

/** `ws` with every word inside an allowed phrase replaced by '' (a mask). */
export function mask(ws: readonly string[], allowed: readonly string[][]): string[] {
  const out = [...ws];
  for (let i = 0; i < ws.length; i++) {
    for (const phrase of allowed) {
      if (phrase[0] !== ws[i] || i + phrase.length > ws.length) continue;
      let j = 1;
      while (j < phrase.length && ws[i + j] === phrase[j]) j++;
      if (j === phrase.length) out.fill('', i, i + phrase.length);
    }
  }
  return out;
}

const unmasked = (ws: readonly string[]) => ws.filter((w) => w !== '');

// ---------------------------------------------------------------------------------------------------------------
// The papers

export interface PaperIndex {
  allowed: string[][];
  sentences: PaperSentence[];
  /** Content stem → indices into `sentences`. */
  byStem: Map<string, number[]>;
  /** Every RUN_WORDS-word run of each paper (words joined by a space) → paper file. */
  runs: Map<string, string>;
}

/** Each run of RUN_WORDS unmasked words in `ws`, with its start. */
function* runsOf(ws: readonly string[]): Generator<[number, string]> {
  let clean = 0; // unmasked words ending at i
  for (let i = 0; i < ws.length; i++) {
    clean = ws[i] === '' ? 0 : clean + 1;
    if (clean >= RUN_WORDS) yield [i - RUN_WORDS + 1, ws.slice(i - RUN_WORDS + 1, i + 1).join(' ')];
  }
}

export function indexPapers(papers: ReadonlyArray<{ name: string; text: string }>, allowed: readonly string[][] = []): PaperIndex {
  const index: PaperIndex = { allowed: [...allowed], sentences: [], byStem: new Map(), runs: new Map() };
  for (const { name, text } of papers) {
    for (const paragraph of text.split(/\n\s*\n/)) {
      for (const [, run] of runsOf(mask(words(paragraph), allowed))) if (!index.runs.has(run)) index.runs.set(run, name);
    }
    for (const line of text.split('\n')) {
      for (const s of sentences(line)) {
        const kept = unmasked(mask(words(s), allowed));
        if (kept.length < MIN_SENTENCE_WORDS) continue;
        const shape = shapeOf(kept);
        const at = index.sentences.push({ paper: name, text: s, shape }) - 1;
        for (const c of shape.content) {
          const list = index.byStem.get(c);
          if (list) list.push(at);
          else index.byStem.set(c, [at]);
        }
      }
    }
  }
  return index;
}

/** Every run of RUN_WORDS or more words and every near paraphrase of a paper sentence in `ours`. */
export function findCopies(ours: readonly OurText[], index: PaperIndex): Finding[] {
  const findings: Finding[] = [];
  for (const piece of ours) {
    // Shared runs: extend each hit to its full length and report it once.
    const ws = mask(words(piece.text), index.allowed);
    let coveredTo = 0;
    for (const [start, run] of runsOf(ws)) {
      if (start < coveredTo) continue;
      const paper = index.runs.get(run);
      if (paper === undefined) continue;
      let end = start + RUN_WORDS;
      while (end < ws.length && ws[end] !== '' && index.runs.has(ws.slice(end - RUN_WORDS + 1, end + 1).join(' '))) end++;
      coveredTo = end;
      const shared = ws.slice(start, end);
      findings.push({ kind: 'run', file: piece.file, line: piece.line, ours: piece.text, paper, paperText: shared.join(' '), score: shared.length });
    }
    // Near paraphrases: candidates are paper sentences sharing a content stem; each is scored once.
    for (const s of sentences(piece.text)) {
      const sw = unmasked(mask(words(s), index.allowed));
      if (sw.length < MIN_SENTENCE_WORDS) continue;
      const shape = shapeOf(sw);
      const seen = new Set<number>();
      let best = -1;
      let bestScore = 0;
      for (const c of shape.content) {
        for (const at of index.byStem.get(c) ?? []) {
          if (seen.has(at)) continue;
          seen.add(at);
          const score = similarity(shape, index.sentences[at].shape);
          if (score > bestScore) {
            bestScore = score;
            best = at;
          }
        }
      }
      if (best >= 0 && bestScore >= PARAPHRASE_THRESHOLD) {
        const p = index.sentences[best];
        findings.push({ kind: 'paraphrase', file: piece.file, line: piece.line, ours: s, paper: p.paper, paperText: p.text, score: bestScore });
      }
    }
  }
  return findings;
}

/** The best paraphrase score of one sentence against the papers (for reporting margins). */
export function bestScore(sentence: string, index: PaperIndex): { score: number; paper?: PaperSentence } {
  const shape = shapeOf(unmasked(mask(words(sentence), index.allowed)));
  let best: PaperSentence | undefined;
  let bestScore = 0;
  for (const p of index.sentences) {
    const score = similarity(shape, p.shape);
    if (score > bestScore) {
      bestScore = score;
      best = p;
    }
  }
  return { score: bestScore, paper: best };
}

// ---------------------------------------------------------------------------------------------------------------
// Our text

/** String literals, template text and JSX text of one TypeScript source, each with its line. */
export function textsOfSource(file: string, source: string): OurText[] {
  const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, kind);
  const out: OurText[] = [];
  const add = (node: ts.Node, text: string) => {
    if (text.trim().length === 0) return;
    out.push({ file, line: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1, text });
  };
  // A chain of literals joined by `+` reads as one text; report it once, at its first line.
  const literalChain = (node: ts.Expression): string | undefined => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
    if (ts.isParenthesizedExpression(node)) return literalChain(node.expression);
    if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
      const left = literalChain(node.left);
      const right = left === undefined ? undefined : literalChain(node.right);
      return right === undefined ? undefined : left + right;
    }
    return undefined;
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) return;
    if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
      const chain = literalChain(node);
      if (chain !== undefined) {
        add(node, chain);
        return;
      }
    }
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) add(node, node.text);
    else if (ts.isTemplateExpression(node)) {
      // Placeholders break runs: each literal part is a text of its own.
      add(node.head, node.head.text);
      for (const span of node.templateSpans) add(span.literal, span.literal.text);
    } else if (ts.isJsxText(node)) add(node, node.text.replace(/\s+/g, ' '));
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** Every string value in a JSON document, each with the line of its first occurrence (deduplicated). */
export function textsOfJson(file: string, source: string): OurText[] {
  const out: OurText[] = [];
  const seen = new Set<string>();
  const lineStarts: number[] = [0];
  for (let i = 0; i < source.length; i++) if (source.charCodeAt(i) === 10) lineStarts.push(i + 1);
  const lineOf = (pos: number) => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid] <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  const re = /"((?:[^"\\]|\\.)*)"/g;
  for (let m = re.exec(source); m !== null; m = re.exec(source)) {
    let text: string;
    try {
      text = JSON.parse(m[0]) as string;
    } catch {
      continue;
    }
    if (words(text).length < MIN_SENTENCE_WORDS || seen.has(text)) continue;
    seen.add(text);
    out.push({ file, line: lineOf(m.index), text });
  }
  return out;
}

/** A markdown or plain text file: one text per paragraph, at its first line. */
export function textsOfMarkdown(file: string, source: string): OurText[] {
  const out: OurText[] = [];
  const lines = source.split('\n');
  let start = -1;
  let buf: string[] = [];
  const flush = () => {
    if (buf.length > 0) out.push({ file, line: start + 1, text: buf.join('\n') });
    buf = [];
    start = -1;
  };
  lines.forEach((l, i) => {
    if (l.trim() === '') flush();
    else {
      if (start < 0) start = i;
      buf.push(l);
    }
  });
  flush();
  return out;
}

const walk = (dir: string, into: string[] = []): string[] => {
  for (const name of readdirSync(dir).sort()) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, into);
    else into.push(path);
  }
  return into;
};

/**
 * The text we ship and write: every non-test .ts/.tsx in src/ (test files are excluded: they may quote a paper to
 * check against it), markdown in src/, text, markdown, HTML and JSON files in public/, the README and docs/.
 * Files are named relative to `root`.
 */
export function collectOurText(root: string): OurText[] {
  const out: OurText[] = [];
  const rel = (p: string) => relative(root, p);
  for (const path of walk(join(root, 'src'))) {
    if (/\.test\.tsx?$/.test(path)) continue;
    if (/\.tsx?$/.test(path)) out.push(...textsOfSource(rel(path), readFileSync(path, 'utf8')));
    else if (path.endsWith('.md')) out.push(...textsOfMarkdown(rel(path), readFileSync(path, 'utf8')));
  }
  for (const path of walk(join(root, 'public'))) {
    if (path.endsWith('.json')) out.push(...textsOfJson(rel(path), readFileSync(path, 'utf8')));
    else if (/\.(md|txt|html)$/.test(path)) out.push(...textsOfMarkdown(rel(path), readFileSync(path, 'utf8')));
  }
  for (const path of [join(root, 'README.md'), ...walk(join(root, 'docs'))]) {
    if (path.endsWith('.md')) out.push(...textsOfMarkdown(rel(path), readFileSync(path, 'utf8')));
  }
  return out;
}
