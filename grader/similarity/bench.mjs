#!/usr/bin/env node
// Measurement for similarity.mjs, from the course's own files.
//
//   node bench.mjs timing    [--root R] [--work DIR] [--students N] [--labs K] [--jobs J] [--seed S] [--max_html M|null]
//       Generates N synthetic submissions (default 500) for each of K labs (default all, 10) and
//       times `node similarity.mjs` on them (SIMILARITY_JOBS=J, default 2).
//   node bench.mjs calibrate [--root R] [--work DIR]
//       For each lab: every solutions/NN_*/wrong/*.cu (as written, and with its local includes
//       inlined) against the reference; the untouched template against the reference and against
//       a second copy of itself; the reference with renamed identifiers and reordered functions
//       against the reference. Prints a table of shares (template subtracted) to choose flag_share.
//
// R defaults to the repository root (two levels up). Per lab the student file is the one in
// build/labs.json's student_files when that exists, else the .cu file present under the same name in
// labs/NN_*/ and solutions/NN_*/. Template = labs/NN_*/<file>, reference = solutions/NN_*/<file>,
// course file = labs/NN_*/baseline.cu when present.

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));

function args(argv) {
  const o = { mode: argv[0], root: path.resolve(HERE, "../.."), work: "/tmp/similarity-bench", students: 500, labs: 0, jobs: 2, seed: 1, max_html: "" };
  for (let i = 1; i < argv.length; i += 2) {
    const k = argv[i].replace(/^--/, "");
    if (!(k in o) || argv[i + 1] === undefined) throw new Error(`unknown or incomplete option ${argv[i]}`);
    o[k] = typeof o[k] === "number" ? Number(argv[i + 1]) : argv[i + 1];
  }
  return o;
}

// ---------------------------------------------------------------- course files

export function courseLabs(root) {
  const labsJson = path.join(root, "build/labs.json");
  const fromJson = new Map();
  if (fs.existsSync(labsJson)) {
    try {
      for (const l of JSON.parse(fs.readFileSync(labsJson, "utf8")).labs ?? [])
        if (l.dir && Array.isArray(l.student_files) && l.student_files.length) fromJson.set(l.dir, l.student_files[0]);
    } catch {
      /* fall back to the file system */
    }
  }
  const out = [];
  for (const d of fs.readdirSync(path.join(root, "labs")).filter(d => /^\d\d_/.test(d)).sort()) {
    const labDir = path.join(root, "labs", d);
    const solDir = path.join(root, "solutions", d);
    if (!fs.existsSync(solDir)) continue;
    let name = fromJson.has(`labs/${d}`) ? path.basename(fromJson.get(`labs/${d}`)) : null;
    if (!name) name = fs.readdirSync(solDir).find(f => f.endsWith(".cu") && fs.existsSync(path.join(labDir, f)));
    if (!name) continue;
    const wrongDir = path.join(solDir, "wrong");
    const wrong = fs.existsSync(wrongDir) ? fs.readdirSync(wrongDir).filter(f => f.endsWith(".cu")).sort().map(f => path.join(wrongDir, f)) : [];
    const baseline = path.join(labDir, "baseline.cu");
    out.push({
      lab: d,
      file: name,
      template: path.join(labDir, name),
      reference: path.join(solDir, name),
      wrong,
      course: fs.existsSync(baseline) ? [baseline] : [],
      solDir,
    });
  }
  return out;
}

// A wrong/ version as one file, the way a student would hand it in: every `#include "x"` that
// resolves inside the lab's solutions/NN_*/ folder (wrong/*.cuh, ../<file>.cu) is inlined, once.
export function expandLocalIncludes(file, solDir, seen = new Set()) {
  const dir = path.dirname(file);
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .map(line => {
      const m = /^\s*#\s*include\s+"([^"]+)"/.exec(line);
      if (!m) return line;
      const target = path.resolve(dir, m[1]);
      if (!target.startsWith(solDir + path.sep) || !fs.existsSync(target)) return line;
      if (seen.has(target)) return `// (${m[1]} already inlined)`;
      seen.add(target);
      return expandLocalIncludes(target, solDir, seen).replace(/^\s*#\s*pragma\s+once\s*$/m, "");
    })
    .join("\n");
}

// ---------------------------------------------------------------- mutations

function rng(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
}
const pick = (r, a) => a[Math.floor(r() * a.length)];
function shuffle(r, a) {
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

const KEYWORDS = new Set(
  ("alignas alignof auto bool break case catch char const constexpr const_cast continue decltype default delete do double " +
    "dynamic_cast else enum explicit extern false float for friend goto if inline int long mutable namespace new noexcept " +
    "nullptr operator private protected public register reinterpret_cast return short signed sizeof static static_assert " +
    "static_cast struct switch template this throw true try typedef typename union unsigned using virtual void volatile while " +
    "include define pragma once ifdef ifndef endif undef std size_t int64_t uint32_t int32_t uint64_t uint8_t float4 float2 dim3 " +
    "threadIdx blockIdx blockDim gridDim __global__ __device__ __host__ __shared__ __forceinline__ cudaStream_t").split(" "),
);

// Renames a few identifiers that the file declares itself (regex, whole words, outside #include lines).
export function renameIdentifiers(text, r, count = 8) {
  const decl = new Set();
  const re = /\b(?:int|float|double|auto|bool|void|char|unsigned|size_t|std::int64_t|std::size_t|int64_t|MaxSum|struct|class)\s*[*&]?\s+([A-Za-z_]\w*)/g;
  let m;
  while ((m = re.exec(text))) if (!KEYWORDS.has(m[1]) && !m[1].startsWith("launch_") && m[1].length > 1) decl.add(m[1]);
  const names = shuffle(r, Array.from(decl)).slice(0, count);
  let out = text;
  names.forEach((n, k) => {
    const to = `${pick(r, ["tmp", "val", "my", "x", "q", "acc", "buf"])}_${n.length}${k}`;
    out = out
      .split("\n")
      .map(line => (/^\s*#\s*include/.test(line) ? line : line.replace(new RegExp(`\\b${n}\\b`, "g"), to)))
      .join("\n");
  });
  return out;
}

// Splits a file into a preamble and top-level chunks (functions, structs, ...) by brace depth;
// `namespace X {` and its closing brace do not count, so functions inside a namespace are chunks too.
// Comment lines just before a chunk stay with it. Then shuffles the chunks.
export function reorderFunctions(text, r) {
  const lines = text.split("\n");
  const chunks = [];
  let cur = [];
  let depth = 0;
  const nsStack = [];
  let started = false;
  const preamble = [];
  for (const line of lines) {
    const code = line.replace(/\/\/.*$/, "").replace(/"(?:\\.|[^"\\])*"/g, '""').replace(/'(?:\\.|[^'\\])'/g, "''");
    if (depth === 0 && /^\s*namespace\b[^;{]*\{\s*$/.test(code)) {
      nsStack.push(true);
      if (cur.length) (started ? chunks : preamble).push(...(started ? [cur] : cur));
      cur = [];
      preamble.push(line);
      continue;
    }
    if (depth === 0 && nsStack.length && /^\s*\}\s*(;)?\s*$/.test(code)) {
      nsStack.pop();
      if (cur.length) chunks.push(cur);
      cur = [];
      chunks.push([line]); // keep namespace closers as their own (movable) chunks
      continue;
    }
    cur.push(line);
    for (const ch of code) {
      if (ch === "{") depth++;
      else if (ch === "}") depth--;
    }
    if (depth < 0) depth = 0;
    const ends = depth === 0 && (/[};]\s*$/.test(code) || /^\s*#/.test(code));
    const blank = /^\s*$/.test(line);
    if (ends && !blank) {
      if (!started && /^\s*(#|using\b|$)/.test(code)) {
        preamble.push(...cur);
      } else {
        started = true;
        chunks.push(cur);
      }
      cur = [];
    }
  }
  if (cur.length) chunks.push(cur);
  return [...preamble, ...shuffle(r, chunks).flat()].join("\n");
}

// Random mix of lines: runs of lines taken in turn from the given sources, in their order.
export function mixLines(sources, r) {
  const ls = sources.map(s => s.split("\n"));
  const out = [];
  const len = Math.max(...ls.map(l => l.length));
  let pos = 0;
  while (pos < len) {
    const src = pick(r, ls);
    const run = 3 + Math.floor(r() * 25);
    out.push(...src.slice(pos, pos + run));
    pos += run;
  }
  return out.join("\n");
}

// ---------------------------------------------------------------- timing

function generate(o, labs) {
  const r = rng(o.seed);
  fs.rmSync(o.work, { recursive: true, force: true });
  const manifest = { labs: [], flag_share: 0.6, min_tokens: 0 };
  if (o.max_html !== "") manifest.max_html = o.max_html === "null" ? null : Number(o.max_html);
  const counts = {};
  for (const L of labs) {
    const dir = path.join(o.work, "subs", L.lab);
    fs.mkdirSync(dir, { recursive: true });
    const tmpl = fs.readFileSync(L.template, "utf8");
    const ref = fs.readFileSync(L.reference, "utf8");
    const wrong = L.wrong.map(w => expandLocalIncludes(w, L.solDir));
    const pool = [tmpl, ref, ...wrong];
    const files = [{ id: "reference", role: "reference", path: L.reference }];
    for (const c of L.course) files.push({ id: `course: ${path.relative(o.root, c)}`, role: "course", path: c });
    for (let s = 0; s < o.students; s++) {
      const x = r();
      let text;
      let kind;
      if (x < 0.1) [kind, text] = ["template", tmpl];
      else if (x < 0.25) [kind, text] = ["ref-renamed-reordered", reorderFunctions(renameIdentifiers(ref, r), r)];
      else if (x < 0.4 && wrong.length) [kind, text] = ["wrong", renameIdentifiers(pick(r, wrong), r, 3)];
      else if (x < 0.7) [kind, text] = ["mix-template-ref-wrong", mixLines([tmpl, pick(r, pool), pick(r, pool)], r)];
      else [kind, text] = ["template-plus-own", reorderFunctions(mixLines([tmpl, pick(r, pool)], r), r)];
      counts[kind] = (counts[kind] ?? 0) + 1;
      const p = path.join(dir, `s${String(s).padStart(3, "0")}_${L.file}`);
      fs.writeFileSync(p, text);
      files.push({ id: `student ${s} / ${kind}`, role: "student", path: p });
    }
    manifest.labs.push({ lab: L.lab, language: "cpp", template: L.template, files });
  }
  const mp = path.join(o.work, "manifest.json");
  fs.writeFileSync(mp, JSON.stringify(manifest, null, 1));
  return { mp, counts };
}

function timing(o) {
  let labs = courseLabs(o.root);
  if (o.labs > 0) labs = labs.slice(0, o.labs);
  const { mp, counts } = generate(o, labs);
  const out = path.join(o.work, "out");
  console.log(`generated ${o.students} submissions x ${labs.length} labs in ${o.work} (${JSON.stringify(counts)})`);
  const t0 = process.hrtime.bigint();
  const res = spawnSync(process.execPath, [path.join(HERE, "similarity.mjs"), mp, out], {
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, SIMILARITY_JOBS: String(o.jobs) },
  });
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  if (res.status !== 0) {
    console.error(`similarity.mjs exited ${res.status}`);
    process.exit(1);
  }
  const j = JSON.parse(fs.readFileSync(path.join(out, "similarity.json"), "utf8"));
  const flagged = j.labs.reduce((s, l) => s + l.pairs.filter(p => p.flagged).length, 0);
  const listed = j.labs.reduce((s, l) => s + l.pairs.length, 0);
  const pages = j.labs.reduce((s, l) => s + l.pairs.filter(p => p.html).length, 0);
  const pairs = labs.length * ((o.students * (o.students - 1)) / 2 + o.students * (1 + (labs[0]?.course.length ?? 0)));
  console.log(`similarity.mjs: ${secs.toFixed(1)} s wall, ${o.jobs} job(s), ~${pairs} pairs compared, ${listed} listed, ${flagged} flagged, ${pages} HTML pages`);
}

// ---------------------------------------------------------------- calibration

function runOne(o, manifest, name) {
  const dir = path.join(o.work, name);
  fs.mkdirSync(dir, { recursive: true });
  const mp = path.join(dir, "manifest.json");
  fs.writeFileSync(mp, JSON.stringify(manifest, null, 1));
  const res = spawnSync(process.execPath, [path.join(HERE, "similarity.mjs"), mp, path.join(dir, "out")], { stdio: ["ignore", "inherit", "inherit"] });
  if (res.status !== 0) throw new Error(`similarity.mjs exited ${res.status} on ${mp}`);
  return JSON.parse(fs.readFileSync(path.join(dir, "out/similarity.json"), "utf8"));
}

function calibrate(o) {
  const r = rng(o.seed);
  fs.rmSync(o.work, { recursive: true, force: true });
  const rows = [];
  for (const L of courseLabs(o.root)) {
    const dir = path.join(o.work, "subs", L.lab);
    fs.mkdirSync(dir, { recursive: true });
    const write = (name, text) => {
      const p = path.join(dir, name);
      fs.writeFileSync(p, text);
      return p;
    };
    const ref = fs.readFileSync(L.reference, "utf8");
    const students = [];
    students.push({ id: "template", path: L.template, kind: "template" });
    students.push({ id: "template-copy", path: write(`template_copy_${L.file}`, fs.readFileSync(L.template, "utf8")), kind: "template" });
    students.push({ id: "ref-renamed-reordered", path: write(`ref_renamed_${L.file}`, reorderFunctions(renameIdentifiers(ref, r, 12), r)), kind: "renamed" });
    for (const w of L.wrong) {
      const b = path.basename(w, ".cu");
      students.push({ id: `wrong/${b}.cu`, path: w, kind: "wrong-as-is" });
      students.push({ id: `wrong/${b}.cu+inlined`, path: write(`wrong_${b}_inlined.cu`, expandLocalIncludes(w, L.solDir)), kind: "wrong-inlined" });
    }
    // One manifest per student so that every student-reference pair is listed (top_per_student).
    const files = [{ id: "reference", role: "reference", path: L.reference }, ...students.map(s => ({ id: s.id, role: "student", path: s.path }))];
    const m = { labs: [{ lab: L.lab, language: "cpp", template: L.template, files }], flag_share: 1, top_per_student: files.length };
    const mNo = { labs: [{ lab: L.lab, language: "cpp", files }], flag_share: 1, top_per_student: files.length };
    const withT = runOne(o, m, `${L.lab}-tmpl`).labs[0].pairs;
    const noT = runOne(o, mNo, `${L.lab}-notmpl`).labs[0].pairs;
    const find = (pairs, a, b) => pairs.find(p => (p.a === a && p.b === b) || (p.a === b && p.b === a));
    for (const s of students) {
      const other = s.id === "template-copy" ? "template" : "reference";
      const p = find(withT, s.id, other);
      const q = find(noT, s.id, other);
      const swap = p && p.a !== s.id;
      rows.push({
        lab: L.lab,
        a: s.id,
        b: other,
        kind: s.kind,
        share_a: p ? (swap ? p.share_b : p.share_a) : 0,
        share_b: p ? (swap ? p.share_a : p.share_b) : 0,
        fp_a: p ? (swap ? p.fingerprints_b : p.fingerprints_a) : null,
        tok_a: p ? (swap ? p.matched_tokens_b : p.matched_tokens_a) : 0,
        tok_b: p ? (swap ? p.matched_tokens_a : p.matched_tokens_b) : 0,
        raw_a: q ? (q.a === s.id ? q.share_a : q.share_b) : 0,
        raw_b: q ? (q.a === s.id ? q.share_b : q.share_a) : 0,
      });
    }
  }
  const f = x => (x === null || x === undefined ? "-" : x.toFixed(3));
  console.log("| lab | a (student side) | b | share_a | share_b | max | a's own fingerprints | matched tokens a / b | share_a, no template | share_b, no template |");
  console.log("|---|---|---|---|---|---|---|---|---|---|");
  for (const x of rows)
    console.log(`| ${x.lab} | ${x.a} | ${x.b} | ${f(x.share_a)} | ${f(x.share_b)} | ${f(Math.max(x.share_a, x.share_b))} | ${x.fp_a ?? "-"} | ${x.tok_a} / ${x.tok_b} | ${f(x.raw_a)} | ${f(x.raw_b)} |`);
  fs.writeFileSync(path.join(o.work, "calibration.json"), JSON.stringify(rows, null, 1));
  const byKind = {};
  for (const x of rows) (byKind[x.kind] ??= []).push(Math.max(x.share_a, x.share_b));
  console.log("\nmax share by kind (min / median / max):");
  for (const [k, v] of Object.entries(byKind)) {
    v.sort((p, q) => p - q);
    console.log(`  ${k}: n=${v.length} min ${f(v[0])} median ${f(v[Math.floor(v.length / 2)])} max ${f(v[v.length - 1])}`);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const o = args(process.argv.slice(2));
  if (o.mode === "timing") timing(o);
  else if (o.mode === "calibrate") calibrate(o);
  else {
    console.error("usage: node bench.mjs timing|calibrate [--root R] [--work DIR] [--students N] [--labs K] [--jobs J] [--seed S]");
    process.exit(2);
  }
}
