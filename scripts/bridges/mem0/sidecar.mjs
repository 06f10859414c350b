#!/usr/bin/env node
// arbor's Mem0 sidecar: drives the OSS `Memory` of the npm package mem0ai over
// arbor's sidecar protocol version 1 (baselines/sidecar/PROTOCOL.md): JSON lines
// on stdin/stdout, one episode at a time, one Mem0 memory per episode.
//
// Written against mem0ai 3.3.1 (pinned in package.json). Install: `npm ci` in
// this folder (node >= 20; builds better-sqlite3, which Mem0's in-memory vector
// store uses). arbor starts it as `node scripts/bridges/mem0/sidecar.mjs`.
//
// Configuration (paper appendix C.2, "Mem0 uses an independent
// retrieval-oriented memory store for each evaluation case, with BGE-M3 for
// semantic retrieval"): the in-memory vector store (SQLite ":memory:", so no
// file is shared between processes), history off, the OpenAI-compatible LLM and
// embedder on arbor's chat and embed endpoints, search with threshold 0 and
// topK = arbor's k (retrieval-oriented: arbor packs the evidence itself).
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { createRequire } from "node:module";

const WRITTEN_AGAINST = "3.3.1";
const PROTOCOL = 1;

// Mem0 would otherwise send telemetry to an external host at start.
process.env.MEM0_TELEMETRY = "false";
// stdout carries the protocol only: the library's notices go to stderr.
const writeOut = process.stdout.write.bind(process.stdout);
for (const k of ["log", "info", "warn", "debug", "error", "trace"]) {
  console[k] = (...a) => process.stderr.write(a.map((x) => (x instanceof Error ? x.stack : typeof x === "string" ? x : JSON.stringify(x))).join(" ") + "\n");
}

let Memory, libraryVersion;
try {
  const require = createRequire(import.meta.url);
  const entry = require.resolve("mem0ai/oss");
  let dir = path.dirname(entry);
  while (!fs.existsSync(path.join(dir, "package.json"))) dir = path.dirname(dir);
  libraryVersion = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")).version;
  ({ Memory } = await import("mem0ai/oss"));
} catch (e) {
  process.stderr.write(`mem0 sidecar: the npm package mem0ai is not installed (${e.code || e.message}); run \`npm ci\` in scripts/bridges/mem0\n`);
  process.exit(3);
}

let hello = null; // the handshake request
let memory = null; // the episode's Mem0 memory
let episode = "";
let interactions = 0;
let failed = 0;
let units = 0;
// usage since the last reply, by role
let usage = {};

function count(role, u, ok) {
  const r = (usage[role] ??= { calls: 0, errors: 0, prompt_tokens: 0, completion_tokens: 0 });
  r.calls++;
  if (!ok) r.errors++;
  if (u) {
    r.prompt_tokens += u.prompt_tokens || 0;
    r.completion_tokens += u.completion_tokens || 0;
  }
}

// wrap counts every call of a client method and lets the sidecar set
// parameters the library leaves to the server (temperature).
function wrap(obj, method, role, extra) {
  const orig = obj[method].bind(obj);
  obj[method] = async (params, opts) => {
    try {
      const res = await orig({ ...params, ...extra }, opts);
      count(role, res && res.usage, true);
      return res;
    } catch (e) {
      count(role, null, false);
      throw e;
    }
  };
}

function key(env) {
  return (env && process.env[env]) || "none";
}

function newMemory() {
  const { chat, embed, options = {} } = hello;
  const m = new Memory({
    version: "v1.1",
    embedder: { provider: "openai", config: { baseURL: embed.base_url, apiKey: key(embed.api_key_env), model: embed.model } },
    vectorStore: { provider: "memory", config: { collectionName: "arbor", dimension: embed.dim || 1024, dbPath: ":memory:" } },
    llm: { provider: "openai", config: { baseURL: chat.base_url, apiKey: key(chat.api_key_env), model: chat.model } },
    disableHistory: true,
    ...(options.custom_instructions ? { customInstructions: options.custom_instructions } : {}),
  });
  const llm = m.llm && m.llm.openai && m.llm.openai.chat && m.llm.openai.chat.completions;
  const emb = m.embedder && m.embedder.openai && m.embedder.openai.embeddings;
  if (!llm || !emb) {
    throw new Error(`mem0ai ${libraryVersion} does not expose llm.openai / embedder.openai as ${WRITTEN_AGAINST} did: the sidecar cannot count its model calls`);
  }
  wrap(llm, "create", "chat", chat.temperature === undefined ? {} : { temperature: chat.temperature });
  wrap(emb, "create", "embed", {});
  return m;
}

// stamp formats an RFC 3339 time as arbor shows it ("2023-05-30 23:40").
function stamp(t) {
  return t ? t.replace("T", " ").slice(0, 16) : "";
}

const ops = {
  async hello(req) {
    hello = req;
    return { protocol: PROTOCOL, system: "mem0", library: "mem0ai", library_version: libraryVersion, written_against: WRITTEN_AGAINST };
  },
  async reset(req) {
    episode = req.episode || "";
    memory = episode ? newMemory() : null;
    interactions = failed = units = 0;
    return {};
  },
  async commit(req) {
    if (!memory) throw new Error("commit before reset: no episode");
    const inter = req.interaction;
    interactions++;
    // The OSS Memory refuses a timestamp: the session time goes into the
    // text (so extraction can date facts) and into the metadata.
    const when = stamp(inter.time);
    const messages = inter.turns
      .filter((t) => t.content && t.content.trim() !== "")
      .map((t) => ({ role: t.role === "assistant" ? "assistant" : "user", content: when ? `[${when}] ${t.content}` : t.content }));
    if (messages.length === 0) return { units: 0 };
    try {
      const res = await memory.add(messages, {
        userId: episode,
        metadata: { interaction_id: inter.id, session: inter.session || "", time: inter.time || "" },
      });
      const n = (res.results || []).length;
      units += n;
      return { units: n };
    } catch (e) {
      failed++;
      throw e;
    }
  },
  async flush() {
    // add() is awaited in commit: nothing is in flight.
    return { interactions, pending: 0, failed, units };
  },
  async recall(req) {
    if (!memory) throw new Error("recall before reset: no episode");
    if (interactions === 0) return { items: [] };
    const res = await memory.search(req.query, { filters: { user_id: episode }, topK: req.k || 50, threshold: 0 });
    // A memory without its interaction id cannot cite a source: left out.
    const items = (res.results || []).filter((r) => r.metadata && r.metadata.interaction_id).map((r) => {
      const md = r.metadata || {};
      return {
        text: r.memory,
        score: r.score || 0,
        time: md.time || "",
        sources: [md.interaction_id],
        channel: "fact",
      };
    });
    return { items };
  },
};

const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
// Requests are answered strictly in order, one at a time.
let queue = Promise.resolve();
rl.on("line", (line) => {
  if (!line.trim()) return;
  queue = queue.then(() => handle(line));
});
rl.on("close", () => queue.then(() => process.exit(0)));

async function handle(line) {
  let req;
  try {
    req = JSON.parse(line);
  } catch (e) {
    process.stderr.write(`mem0 sidecar: unreadable request: ${e.message}\n`);
    process.exit(2);
  }
  let reply;
  try {
    const op = ops[req.op];
    if (!op) throw new Error(`unknown op ${JSON.stringify(req.op)}`);
    reply = { ...(await op(req)), id: req.id, ok: true };
  } catch (e) {
    reply = { id: req.id, ok: false, error: String((e && e.message) || e).split("\n")[0] };
  }
  reply.usage = usage;
  usage = {};
  writeOut(JSON.stringify(reply) + "\n");
}
