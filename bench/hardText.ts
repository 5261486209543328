// The hard part of the drift corpus (bench/driftCorpus.ts): text the round trip's fast path finds
// hardest, generated from a seed (no download): Chinese, Japanese and Korean prose, emoji (ZWJ
// families, skin tones, flags, keycaps, variation selectors), long runs of spaces, tabs and blank
// lines, long digit runs (numbers, hashes, tables), and code mixed with all of these. Each piece is
// what a real rollout holds: a model reasoning in Chinese, a tool printing a table, a diff with
// deep indentation.

const CJK_COMMON =
  "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长知民样现分将外但身些与高意进把法此实回二理美点月明其种声全工己话儿者向情部正名定女问力机给等几很业最间新什打便位因重被走电四第门相次东政海口使教西再平真听世气信北少关并内加化由却代军产入先山五太水万市眼体别处总才场师书比住员九笑性通目华报立马命张活难神数件安表原车白应路期叫死常提感金何更反合放做系计或司利受光王果亲界及今京务制解各任至清物台象记边共风战干接它许八特觉望直服毛林题建南度统色字请交爱让认算论百吃义科怎元社术结六功指思非流每青管夫连远资队跟带花快条院变联言权往展该领传近留红治决周保达办运武半候七必城父强步完革深区即求品士转量空甚众技轻程告江语英基派满式李息写呢识极令黄德收脸钱党倒未持音跑";
const KANA =
  "あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわをんアイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモヤユヨラリルレロワヲンー";
const CJK_PUNCT = "，。、；：？！「」『』（）《》…—";
const EMOJI = [
  "😀",
  "😂",
  "🤔",
  "🔥",
  "✅",
  "❌",
  "⚠️",
  "❤️",
  "✨",
  "🚀",
  "👍🏽",
  "👋🏿",
  "👨‍👩‍👧‍👦",
  "🧑‍💻",
  "🏳️‍🌈",
  "🇯🇵",
  "🇩🇪",
  "1️⃣",
  "#️⃣",
  "☕",
  "📦",
  "🐛",
  "🎉",
  "💡",
];

type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[] | string): T =>
  xs[Math.floor(r() * xs.length)] as unknown as T;
const int = (r: Rand, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));

/** A sentence of Chinese, Japanese or Korean text, with CJK punctuation and the odd Latin word. */
function cjkSentence(r: Rand): string {
  const kind = r();
  let s = "";
  const n = int(r, 6, 60);
  for (let i = 0; i < n; i++) {
    if (kind < 0.55) s += pick<string>(r, CJK_COMMON);
    else if (kind < 0.8) s += r() < 0.6 ? pick<string>(r, KANA) : pick<string>(r, CJK_COMMON);
    // Hangul syllables, mostly common ones, sometimes any of the 11,172.
    else s += String.fromCodePoint(0xac00 + (r() < 0.8 ? int(r, 0, 400) * 28 : int(r, 0, 11171)));
    if (r() < 0.08) s += pick<string>(r, CJK_PUNCT);
    if (r() < 0.03) s += ` ${pick(r, ["API", "JSON", "GPU", "token", "Python", "v2"])} `;
  }
  return `${s}${pick<string>(r, "。！？")}`;
}

function emojiRun(r: Rand): string {
  let s = "";
  const n = int(r, 1, 12);
  for (let i = 0; i < n; i++) s += pick<string>(r, EMOJI) + (r() < 0.3 ? " " : "");
  return s;
}

/** Deep indentation, tab runs, blank-line runs, trailing spaces: what diffs and logs hold. */
function whitespaceBlock(r: Rand): string {
  let s = "";
  const lines = int(r, 3, 30);
  for (let i = 0; i < lines; i++) {
    const indent = r() < 0.2 ? "\t".repeat(int(r, 1, 12)) : " ".repeat(int(r, 0, 120));
    s += `${indent}${pick(r, ["if (x) {", "}", "return y;", "- item", "| a | b |", "key: value"])}`;
    s += r() < 0.2 ? " ".repeat(int(r, 1, 40)) : "";
    s += "\n".repeat(r() < 0.15 ? int(r, 2, 12) : 1);
  }
  if (r() < 0.3) s += " ".repeat(int(r, 200, 2000));
  return s;
}

/** Numbers of every length: ids, hashes, timestamps, tables of floats, a digit run of thousands. */
function digitBlock(r: Rand): string {
  const digits = (n: number) => {
    let d = "";
    for (let i = 0; i < n; i++) d += String.fromCharCode(48 + int(r, 0, 9));
    return d;
  };
  const parts: string[] = [];
  const n = int(r, 3, 20);
  for (let i = 0; i < n; i++) {
    const k = r();
    if (k < 0.3) parts.push(`${digits(int(r, 1, 6))}.${digits(int(r, 1, 8))}`);
    else if (k < 0.5) parts.push(`2026-${digits(2)}-${digits(2)}T${digits(2)}:${digits(2)}Z`);
    else if (k < 0.65) parts.push(`0x${int(r, 0, 2 ** 30).toString(16)}${digits(int(r, 0, 9))}`);
    else if (k < 0.9) parts.push(digits(int(r, 7, 64)));
    else parts.push(digits(int(r, 200, 3000)));
  }
  return parts.join(r() < 0.5 ? " " : r() < 0.5 ? ", " : "\n");
}

/**
 * One chunk of hard text of about `want` characters, mixing CJK, emoji, whitespace and digit runs
 * with `ordinary` (real prose, code or JSON) text.
 */
export function hardChunk(r: Rand, want: number, ordinary: () => string): string {
  let s = "";
  while (s.length < want) {
    const k = r();
    if (k < 0.3) s += cjkSentence(r);
    else if (k < 0.42) s += emojiRun(r);
    else if (k < 0.57) s += whitespaceBlock(r);
    else if (k < 0.72) s += digitBlock(r);
    else s += ordinary().slice(0, Math.max(40, want - s.length));
    s += r() < 0.5 ? "\n" : r() < 0.5 ? " " : "";
  }
  return s;
}
