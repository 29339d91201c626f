#!/usr/bin/env node
// Code-similarity (copying) detector for the course grader, built on Dolos
// (@dodona/dolos-lib). Usage:
//
//   node similarity.mjs MANIFEST.json OUT_DIR
//
// See README.md for the manifest and the output format. Exit codes: 0 success,
// 2 bad manifest (or bad arguments), 3 Dolos failed (or another internal error).
//
// All fingerprinting, winnowing, template subtraction and fragment building is
// done by Dolos. This file only (1) feeds each lab's files and its template to
// Dolos, (2) reads the per-file fingerprint sets out of Dolos's index to get,
// for every pair that involves a student, how much of each side is covered by
// fingerprints the two files share (the same numbers as Dolos's Pair
// leftCovered/rightCovered, without building a Pair object for each of the
// ~n²/2 pairs), (4) computes Dolos's similarity and longest-run figures for the
// listed pairs from the same index, and (5) asks Dolos for a Pair and its
// fragments only for the flagged pairs that get an HTML page, checking there
// that Dolos's Pair agrees with (2) and (4).

import { fork } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const SELF = fileURLToPath(import.meta.url);
const HERE = path.dirname(SELF);

export const DEFAULT_FLAG_SHARE = 0.6;
// A run of this many consecutive shared fingerprints (about 450 tokens, 40-60 lines of code) is flagged
// whatever the shares: a block pasted into a file padded with other code. README.md, "Threshold".
export const DEFAULT_FLAG_LONGEST = 50;
export const DEFAULT_TOP_PER_STUDENT = 3;
export const DEFAULT_MAX_HTML = 250;
const ROLES = new Set(["student", "reference", "course"]);

class ManifestError extends Error {}
class DolosError extends Error {}

// ---------------------------------------------------------------- manifest

function loadManifest(manifestPath) {
  let text;
  try {
    text = fs.readFileSync(manifestPath, "utf8");
  } catch (e) {
    throw new ManifestError(`cannot read manifest ${manifestPath}: ${e.message}`);
  }
  let m;
  try {
    m = JSON.parse(text);
  } catch (e) {
    throw new ManifestError(`manifest ${manifestPath} is not valid JSON: ${e.message}`);
  }
  if (m === null || typeof m !== "object" || Array.isArray(m)) throw new ManifestError("manifest must be a JSON object");
  if (!Array.isArray(m.labs)) throw new ManifestError("manifest.labs must be an array");

  const flagShare = m.flag_share ?? DEFAULT_FLAG_SHARE;
  if (typeof flagShare !== "number" || !(flagShare > 0 && flagShare <= 1))
    throw new ManifestError(`flag_share must be a number in (0, 1], got ${JSON.stringify(m.flag_share)}`);
  const flagLongest = m.flag_longest === undefined ? DEFAULT_FLAG_LONGEST : m.flag_longest;
  if (flagLongest !== null && (!Number.isInteger(flagLongest) || flagLongest < 1))
    throw new ManifestError(`flag_longest must be a positive integer or null (off), got ${JSON.stringify(m.flag_longest)}`);
  const minTokens = m.min_tokens ?? 0;
  if (!Number.isInteger(minTokens) || minTokens < 0)
    throw new ManifestError(`min_tokens must be a non-negative integer, got ${JSON.stringify(m.min_tokens)}`);
  const topPerStudent = m.top_per_student ?? DEFAULT_TOP_PER_STUDENT;
  if (!Number.isInteger(topPerStudent) || topPerStudent < 0)
    throw new ManifestError(`top_per_student must be a non-negative integer, got ${JSON.stringify(m.top_per_student)}`);
  const maxHtml = m.max_html === undefined ? DEFAULT_MAX_HTML : m.max_html;
  if (maxHtml !== null && (!Number.isInteger(maxHtml) || maxHtml < 0))
    throw new ManifestError(`max_html must be a non-negative integer or null (no limit), got ${JSON.stringify(m.max_html)}`);
  const maxFpPct = m.max_fingerprint_percentage ?? null;
  if (maxFpPct !== null && (typeof maxFpPct !== "number" || !(maxFpPct > 0 && maxFpPct <= 1)))
    throw new ManifestError(`max_fingerprint_percentage must be a number in (0, 1] or absent`);

  const labNames = new Set();
  const labDirs = new Set();
  const labs = m.labs.map((lab, li) => {
    const where = `labs[${li}]`;
    if (lab === null || typeof lab !== "object") throw new ManifestError(`${where} must be an object`);
    if (typeof lab.lab !== "string" || lab.lab === "") throw new ManifestError(`${where}.lab must be a non-empty string`);
    if (labNames.has(lab.lab)) throw new ManifestError(`${where}: lab ${JSON.stringify(lab.lab)} appears twice`);
    labNames.add(lab.lab);
    const dir = safeName(lab.lab);
    if (labDirs.has(dir)) throw new ManifestError(`${where}: lab name ${JSON.stringify(lab.lab)} collides with another after sanitising`);
    labDirs.add(dir);
    const language = lab.language ?? "cpp";
    if (typeof language !== "string" || language === "") throw new ManifestError(`${where}.language must be a string`);
    let template = null;
    if (lab.template !== undefined && lab.template !== null) {
      if (typeof lab.template !== "string" || lab.template === "") throw new ManifestError(`${where}.template must be a path`);
      checkReadable(lab.template, `${where}.template`);
      template = lab.template;
    }
    if (!Array.isArray(lab.files)) throw new ManifestError(`${where}.files must be an array`);
    const ids = new Set();
    const files = lab.files.map((f, fi) => {
      const fw = `${where}.files[${fi}]`;
      if (f === null || typeof f !== "object") throw new ManifestError(`${fw} must be an object`);
      if (typeof f.id !== "string" || f.id === "") throw new ManifestError(`${fw}.id must be a non-empty string`);
      if (ids.has(f.id)) throw new ManifestError(`${fw}: id ${JSON.stringify(f.id)} appears twice in lab ${lab.lab}`);
      ids.add(f.id);
      if (!ROLES.has(f.role)) throw new ManifestError(`${fw}.role must be one of student, reference, course; got ${JSON.stringify(f.role)}`);
      if (typeof f.path !== "string" || f.path === "") throw new ManifestError(`${fw}.path must be a path`);
      checkReadable(f.path, `${fw}.path`);
      return { id: f.id, role: f.role, path: f.path };
    });
    // Optional per-lab overrides of the global threshold and min_tokens.
    const labFlag = lab.flag_share ?? null;
    if (labFlag !== null && (typeof labFlag !== "number" || !(labFlag > 0 && labFlag <= 1)))
      throw new ManifestError(`${where}.flag_share must be a number in (0, 1] or absent`);
    const labMin = lab.min_tokens ?? null;
    if (labMin !== null && (!Number.isInteger(labMin) || labMin < 0)) throw new ManifestError(`${where}.min_tokens must be a non-negative integer or absent`);
    return { lab: lab.lab, dir, language, template, files, flagShare: labFlag, minTokens: labMin };
  });
  return { flagShare, flagLongest, minTokens, topPerStudent, maxHtml, maxFpPct, labs };
}

function checkReadable(p, what) {
  let st;
  try {
    st = fs.statSync(p);
  } catch (e) {
    throw new ManifestError(`${what}: cannot read ${p}: ${e.code ?? e.message}`);
  }
  if (!st.isFile()) throw new ManifestError(`${what}: ${p} is not a regular file`);
}

// A file-name-safe, collision-resistant version of an id: ids may hold ':', '/'
// and spaces. Names that had to be changed get a short hash of the original.
export function safeName(id) {
  let s = id.replace(/[^A-Za-z0-9._-]+/g, "_").replace(/^[._]+/, "");
  if (s.length > 60) s = s.slice(0, 60);
  if (s !== id || s === "") s = `${s}${s ? "_" : ""}${createHash("sha256").update(id).digest("hex").slice(0, 8)}`;
  return s;
}

// ---------------------------------------------------------------- analysis of one lab

let dolosLib = null;
async function lib() {
  if (!dolosLib) {
    try {
      dolosLib = await import("@dodona/dolos-lib");
    } catch (e) {
      throw new DolosError(`cannot load @dodona/dolos-lib (did install.sh run?): ${e.message}`);
    }
  }
  return dolosLib;
}

export async function dolosVersion() {
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(HERE, "node_modules/@dodona/dolos-lib/package.json"), "utf8"));
    return pkg.version;
  } catch {
    return null;
  }
}

function readText(p) {
  // Files were checked while the manifest was read; a failure here is a race.
  return fs.readFileSync(p, "utf8");
}

async function analyzeLab(lab, globalOpts, outDir) {
  const { Dolos, File } = await lib();
  const opts = { ...globalOpts, flagShare: lab.flagShare ?? globalOpts.flagShare, minTokens: lab.minTokens ?? globalOpts.minTokens };
  const n = lab.files.length;
  const student = lab.files.map(f => f.role === "student");
  // A file of the course is large and full of the idioms every solution uses (the baseline's launch, a model's
  // loop): only the student's side counts against it — how much of the student's code came from the course.
  const course = lab.files.map(f => f.role === "course");
  const flagLongest = opts.flagLongest ?? Infinity;
  const result = { lab: lab.lab, files: n, flag_share: opts.flagShare, flag_longest: opts.flagLongest, min_tokens: opts.minTokens, flagged: 0, html_omitted: 0, pairs: [] };
  if (n < 2 || !student.some(Boolean)) return result;

  const t0 = performance.now();
  const contents = lab.files.map(f => readText(f.path));
  const dfiles = lab.files.map((f, i) => new File(f.path, contents[i]));
  const template = lab.template ? new File(lab.template, readText(lab.template)) : undefined;

  let report;
  try {
    const dolos = new Dolos({
      language: lab.language,
      // Dolos refuses this option for exactly two files (every shared hash is in 100% of them).
      maxFingerprintPercentage: opts.maxFpPct !== null && n > 2 ? opts.maxFpPct : null,
    });
    report = await dolos.analyze(dfiles, lab.lab, template);
  } catch (e) {
    throw new DolosError(`Dolos failed on lab ${lab.lab}: ${e.message}`);
  }

  const tIndexed = performance.now();
  // Index Dolos's entries by our file index.
  const byFile = new Map(dfiles.map((f, i) => [f, i]));
  const entries = new Array(n);
  for (const e of report.entries()) {
    const i = byFile.get(e.file.file);
    if (i === undefined) throw new DolosError(`Dolos returned an entry for an unknown file ${e.file.path}`);
    entries[i] = e;
  }
  const tfiles = entries.map(e => e.file);
  const tindex = new Map(tfiles.map((f, i) => [f, i]));

  // own[i]: fingerprints (winnowed k-gram occurrences) of file i that are not
  // ignored, i.e. not in the template (and not above max_fingerprint_percentage).
  const own = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let ignoredOcc = 0;
    for (const fp of entries[i].ignored) ignoredOcc += fp.occurrencesOf(tfiles[i]).length;
    own[i] = entries[i].kgrams.length - ignoredOcc;
  }

  // cov[i*n+j]: occurrences of file i's fingerprints that are shared with file j
  // (= Dolos Pair(i, j).leftCovered), for pairs with at least one student.
  const cov = new Float64Array(n * n);
  for (const fp of report.sharedFingerprints()) {
    if (fp.ignored || fp.fileCount() < 2) continue;
    const fs_ = [];
    const cnt = [];
    for (const tf of fp.files()) {
      const i = tindex.get(tf);
      if (i === undefined) continue; // the template (only when ignored; kept for safety)
      fs_.push(i);
      cnt.push(fp.occurrencesOf(tf).length);
    }
    const m = fs_.length;
    for (let x = 0; x < m; x++) {
      const i = fs_[x];
      const si = student[i];
      const ci = cnt[x];
      const row = i * n;
      for (let y = 0; y < m; y++) {
        if (x === y) continue;
        const j = fs_[y];
        if (si || student[j]) cov[row + j] += ci;
      }
    }
  }

  const share = (i, j) => (own[i] > 0 ? cov[i * n + j] / own[i] : 0);

  // Tokens of file i covered by fingerprints it shares with file j (for min_tokens).
  const matchedTokens = (i, j) => {
    const ti = tfiles[i];
    const mark = new Uint8Array(ti.tokens.length);
    const other = entries[j].shared;
    for (const fp of entries[i].shared) {
      if (!other.has(fp)) continue;
      for (const occ of fp.occurrencesOf(ti)) mark.fill(1, occ.side.start, occ.side.stop + 1);
    }
    let c = 0;
    for (let k = 0; k < mark.length; k++) c += mark[k];
    return c;
  };

  // Dolos's Pair.similarity from the index (dolos-core 1.2.1 Pair constructor, including its use of
  // the left file's ignored-fingerprint count for both sides).
  const dolosSimilarity = (i, j) => {
    const ignored = entries[i].ignored.size;
    const den = entries[i].kgrams.length + entries[j].kgrams.length - 2 * ignored;
    return den > 0 ? (cov[i * n + j] + cov[j * n + i]) / den : 0;
  };

  // Dolos's Pair.longest (longest run of shared fingerprints, as its longestCommonSubstring defines
  // it), with a hash map instead of Dolos's all-against-all loop: same result, linear time.
  // Per file, its shared fingerprints' occurrences in file order (built once); a pair filters them.
  const occurrences = new Array(n);
  const occurrencesOf = i => {
    if (!occurrences[i]) {
      const ti = tfiles[i];
      const list = [];
      for (const fp of entries[i].shared) for (const occ of fp.occurrencesOf(ti)) list.push({ fp, hash: fp.hash, index: occ.side.index });
      occurrences[i] = list.sort((p, q) => p.index - q.index);
    }
    return occurrences[i];
  };
  const sharedOccurrences = (i, j) => {
    const other = entries[j].shared;
    return occurrencesOf(i).filter(o => other.has(o.fp));
  };
  const longestRun = (i, j) => {
    const l = sharedOccurrences(i, j);
    const r = sharedOccurrences(j, i);
    const [short, long] = l.length < r.length ? [l, r] : [r, l];
    const byHash = new Map();
    for (const s of short) {
      const list = byHash.get(s.hash);
      if (list) list.push(s.index);
      else byHash.set(s.hash, [s.index]);
    }
    let longest = 0;
    let prev = new Map();
    for (const x of long) {
      const curr = new Map();
      for (const idx of byHash.get(x.hash) ?? []) {
        const v = (prev.get(idx - 1) ?? 0) + 1;
        curr.set(idx, v);
        if (v > longest) longest = v;
      }
      prev = curr;
    }
    return longest;
  };

  // Candidate pairs: every pair with at least one student, never reference–course
  // or course–course. The student goes first (a); two students keep manifest order.
  const flagged = [];
  const topByStudent = new Map();
  const pushTop = (s, rec) => {
    if (opts.topPerStudent === 0) return;
    let list = topByStudent.get(s);
    if (!list) topByStudent.set(s, (list = []));
    if (list.length < opts.topPerStudent) {
      list.push(rec);
      list.sort((p, q) => q.max - p.max);
    } else if (rec.max > list[list.length - 1].max) {
      list[list.length - 1] = rec;
      list.sort((p, q) => q.max - p.max);
    }
  };
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      if (!student[i] && !student[j]) continue;
      const [a, b] = student[i] ? [i, j] : [j, i];
      const sa = share(a, b);
      const sb = share(b, a);
      const max = Math.max(sa, sb);
      const rec = { a, b, sa, sb, max, by: [] };
      if (sa >= opts.flagShare || (!course[b] && sb >= opts.flagShare)) {
        // min_tokens: the side that reaches the threshold must have at least that
        // many tokens of matched (non-template) code.
        let ok = opts.minTokens === 0;
        if (!ok && sa >= opts.flagShare && (rec.ta = matchedTokens(a, b)) >= opts.minTokens) ok = true;
        if (!ok && !course[b] && sb >= opts.flagShare && (rec.tb = matchedTokens(b, a)) >= opts.minTokens) ok = true;
        if (ok) rec.by.push("share");
      }
      // A long unbroken run flags the pair whatever the shares (code pasted into a file padded with more code,
      // or one function of a large course file). A run cannot be longer than either side's shared count.
      if (Math.min(cov[a * n + b], cov[b * n + a]) >= flagLongest && (rec.longest = longestRun(a, b)) >= flagLongest)
        rec.by.push("longest");
      rec.flagged = rec.by.length > 0;
      if (rec.flagged) flagged.push(rec);
      if (max > 0) {
        if (student[a]) pushTop(a, rec);
        if (student[b]) pushTop(b, rec);
      }
    }
  }

  const chosen = new Set(flagged);
  for (const list of topByStudent.values()) for (const rec of list) chosen.add(rec);
  const recs = Array.from(chosen).sort((p, q) => q.max - p.max || Math.min(q.sa, q.sb) - Math.min(p.sa, p.sb) || p.a - q.a || p.b - q.b);

  const tPairs = performance.now();
  const labOut = path.join(outDir, lab.dir);
  let htmlLeft = opts.maxHtml === null ? Infinity : opts.maxHtml;
  result.flagged = flagged.length;
  for (const rec of recs) {
    const A = lab.files[rec.a];
    const B = lab.files[rec.b];
    const wantHtml = rec.flagged && htmlLeft > 0;
    if (rec.flagged && !wantHtml) result.html_omitted++;
    // Dolos's Pair object costs O(|A|·|B|) to build (its longest-run search), too much for the
    // tens of thousands of flagged pairs a collusive class produces; it is built only where its
    // fragments are needed (the HTML pages), and there its numbers are checked against ours.
    const sim = dolosSimilarity(rec.a, rec.b);
    const longest = rec.longest ?? longestRun(rec.a, rec.b);
    let pair = null;
    if (wantHtml) {
      try {
        pair = report.getPair(tfiles[rec.a], tfiles[rec.b]);
      } catch (e) {
        throw new DolosError(`Dolos getPair failed for ${A.id} / ${B.id}: ${e.message}`);
      }
      if (pair.leftCovered !== cov[rec.a * n + rec.b] || pair.rightCovered !== cov[rec.b * n + rec.a] ||
          Math.abs(pair.similarity - sim) > 1e-9 || pair.longest !== longest)
        throw new DolosError(`internal check failed for ${A.id} / ${B.id}: Dolos Pair covered ${pair.leftCovered}/${pair.rightCovered}, ` +
          `similarity ${pair.similarity}, longest ${pair.longest}; index-derived ${cov[rec.a * n + rec.b]}/${cov[rec.b * n + rec.a]}, ${sim}, ${longest}`);
    }
    const out = {
      a: A.id,
      b: B.id,
      role_b: B.role,
      share_a: round(rec.sa),
      share_b: round(rec.sb),
      similarity: round(sim),
      longest,
      fingerprints_a: own[rec.a],
      fingerprints_b: own[rec.b],
      matched_tokens_a: rec.ta ?? matchedTokens(rec.a, rec.b),
      matched_tokens_b: rec.tb ?? matchedTokens(rec.b, rec.a),
      flagged: !!rec.flagged,
      flagged_by: rec.by,
      html: null,
    };
    if (wantHtml) {
      htmlLeft--;
      let fragments;
      try {
        fragments = pair.buildFragments();
      } catch (e) {
        throw new DolosError(`Dolos buildFragments failed for ${A.id} / ${B.id}: ${e.message}`);
      }
      const rel = path.join(lab.dir, `${safeName(A.id)}--${safeName(B.id)}.html`);
      fs.mkdirSync(labOut, { recursive: true });
      fs.writeFileSync(path.join(outDir, rel), renderHtml({ ...lab, flagShare: opts.flagShare, flagLongest: opts.flagLongest }, A, B, contents[rec.a], contents[rec.b], fragments, out, tfiles[rec.a].mapping, tfiles[rec.b].mapping));
      out.html = rel.split(path.sep).join("/");
    }
    result.pairs.push(out);
  }
  if (process.env.SIMILARITY_VERBOSE)
    process.stderr.write(`similarity: lab ${lab.lab}: ${n} files, Dolos index ${(tIndexed - t0).toFixed(0)} ms, shares ${(tPairs - tIndexed).toFixed(0)} ms, ` +
      `${recs.length} pairs reported (${flagged.length} flagged) ${(performance.now() - tPairs).toFixed(0)} ms\n`);
  return result;
}

function round(x) {
  return Math.round(x * 10000) / 10000;
}

// ---------------------------------------------------------------- HTML

const ESC = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
function esc(s) {
  return String(s).replace(/[&<>"']/g, c => ESC[c]);
}

function colour(k) {
  const hue = Math.round((k * 137.508) % 360);
  return `hsl(${hue}, 85%, 80%)`;
}

// Per line, per character: the index of the fragment covering it (-1: none, -2: a short match).
// Regions are tree-sitter positions: 0-based rows, columns in UTF-16 code units
// (JS string indices), end column exclusive. Fragments come longest first; the first to
// paint a character keeps it.
const SHORT = -2;
const SHORT_COLOUR = "hsl(50, 60%, 86%)";
function paint(lines, fragments, side, nLong, mapping) {
  const marks = lines.map(l => new Int32Array(l.length + 1).fill(-1));
  const paintRegion = (r, v) => {
    for (let row = r.startRow; row <= r.endRow && row < lines.length; row++) {
      const from = row === r.startRow ? r.startCol : 0;
      const to = row === r.endRow ? r.endCol : lines[row].length + 1;
      const m = marks[row];
      for (let c = Math.max(0, from); c < Math.min(to, m.length); c++) if (m[c] === -1) m[c] = v;
    }
  };
  fragments.forEach((fr, k) => {
    const v = k < nLong ? k : SHORT;
    // Token by token (Dolos's tokenizer mapping), not the fragment's or k-gram's merged
    // selection: a k-gram that ends on the ")" of a large node has its region widened back to
    // that node's start, which would paint unrelated code in between.
    for (const po of fr.pairs) {
      const side_ = side === "left" ? po.left : po.right;
      for (let t = side_.start; t <= side_.stop; t++) if (mapping[t]) paintRegion(mapping[t], v);
    }
  });
  // Cosmetic: punctuation between two characters of the same fragment on a line (not tokens
  // of its own in the syntax tree) takes that fragment's colour.
  for (let r = 0; r < lines.length; r++) {
    const m = marks[r];
    const line = lines[r];
    let last = -1;
    for (let c = 0; c < line.length; c++) {
      if (m[c] !== -1) {
        if (last >= 0 && c - last > 1 && m[last] === m[c] && /^[^A-Za-z0-9_]*$/.test(line.slice(last + 1, c))) m.fill(m[c], last + 1, c);
        last = c;
      }
    }
  }
  return marks;
}

function renderSide(lines, marks, prefix) {
  const rows = [];
  for (let r = 0; r < lines.length; r++) {
    const line = lines[r];
    const m = marks[r];
    let html = "";
    let c = 0;
    while (c < line.length) {
      const k = m[c];
      let e = c + 1;
      while (e < line.length && m[e] === k) e++;
      const text = esc(line.slice(c, e).replace(/\t/g, "    "));
      if (k >= 0) html += `<span style="background:${colour(k)}" title="fragment ${k + 1}">${text}</span>`;
      else if (k === SHORT) html += `<span style="background:${SHORT_COLOUR}" title="short match (one fingerprint)">${text}</span>`;
      else html += text;
      c = e;
    }
    const lineMark = m.some(v => v !== -1);
    rows.push(
      `<tr id="${prefix}${r + 1}"><td style="text-align:right;color:#888;padding:0 6px;user-select:none;border-right:1px solid #ddd;${lineMark ? "background:#f3f3f3;" : ""}">${r + 1}</td>` +
        `<td style="white-space:pre;padding:0 6px">${html || " "}</td></tr>`,
    );
  }
  return `<table style="border-collapse:collapse;font:12px/1.35 monospace;width:100%">${rows.join("\n")}</table>`;
}

function renderHtml(lab, A, B, textA, textB, fragments, out, mapA, mapB) {
  const la = textA.split(/\r?\n/);
  const lb = textB.split(/\r?\n/);
  // Longest first; fragments of one fingerprint (often a repeated idiom paired with each of its
  // repetitions) share one neutral colour and are not listed.
  fragments = fragments.slice().sort((p, q) => q.pairs.length - p.pairs.length || p.leftkgrams.from - q.leftkgrams.from);
  const nLong = fragments.filter(fr => fr.pairs.length >= 2).length;
  const ma = paint(la, fragments, "left", nLong, mapA);
  const mb = paint(lb, fragments, "right", nLong, mapB);
  const fragRows = fragments
    .slice(0, nLong)
    .map((fr, k) => {
      const l = fr.leftSelection;
      const r = fr.rightSelection;
      return (
        `<tr><td><span style="display:inline-block;width:1.2em;background:${colour(k)}">&nbsp;</span> ${k + 1}</td>` +
        `<td><a href="#a${l.startRow + 1}">${l.startRow + 1}–${l.endRow + 1}</a></td>` +
        `<td><a href="#b${r.startRow + 1}">${r.startRow + 1}–${r.endRow + 1}</a></td>` +
        `<td style="text-align:right">${fr.pairs.length}</td></tr>`
      );
    })
    .join("\n");
  const th = 'style="text-align:left;padding:2px 8px;border-bottom:1px solid #ccc"';
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>${esc(lab.lab)}: ${esc(A.id)} vs ${esc(B.id)}</title></head>
<body style="font-family:sans-serif;margin:12px;color:#222">
<h1 style="font-size:18px">${esc(lab.lab)}: ${esc(A.id)} vs ${esc(B.id)} (${esc(B.role)})</h1>
<p style="font-size:13px">Share of ${esc(A.id)} matched in ${esc(B.id)}: <b>${out.share_a.toFixed(3)}</b>;
share of ${esc(B.id)} matched in ${esc(A.id)}: <b>${out.share_b.toFixed(3)}</b>;
Dolos similarity ${out.similarity.toFixed(3)}; longest common run ${out.longest} fingerprints.
${out.flagged_by.length ? `Flagged by ${out.flagged_by.map(x => (x === "share" ? `a share of at least ${lab.flagShare}` : `a run of at least ${lab.flagLongest} fingerprints`)).join(" and by ")}.` : ""}
${lab.template ? "Code that is also in the lab's template is not counted and not highlighted." : "No template was subtracted."}
Matching is on the syntax tree's node types: renamed identifiers and changed literals still match.
A match is evidence to look at, not proof of copying.</p>
<details style="font-size:13px;margin-bottom:10px"><summary>${nLong} matched fragment(s) of two or more fingerprints, longest first` +
    `${fragments.length > nLong ? `; ${fragments.length - nLong} one-fingerprint match(es) shown in <span style="background:${SHORT_COLOUR}">this colour</span>, not listed` : ""}</summary>
<table style="font-size:12px;border-collapse:collapse;margin-top:6px">
<tr><th ${th}>fragment</th><th ${th}>lines in ${esc(A.id)}</th><th ${th}>lines in ${esc(B.id)}</th><th ${th}>fingerprints</th></tr>
${fragRows}
</table></details>
<div style="display:flex;gap:10px;align-items:flex-start">
<div style="flex:1;min-width:0;overflow-x:auto;border:1px solid #ccc">
<div style="background:#eee;padding:4px 6px;font-size:13px"><b>${esc(A.id)}</b> (${esc(A.role)}) ${esc(path.basename(A.path))}</div>
${renderSide(la, ma, "a")}
</div>
<div style="flex:1;min-width:0;overflow-x:auto;border:1px solid #ccc">
<div style="background:#eee;padding:4px 6px;font-size:13px"><b>${esc(B.id)}</b> (${esc(B.role)}) ${esc(path.basename(B.path))}</div>
${renderSide(lb, mb, "b")}
</div>
</div>
</body></html>
`;
}

// ---------------------------------------------------------------- driver

function fail(code, msg) {
  process.stderr.write(`similarity: ${msg}\n`);
  process.exit(code);
}

async function runWorker() {
  // Child process: receives {lab, opts, outDir} messages, answers with results.
  process.on("message", async msg => {
    if (msg.type === "stop") process.exit(0);
    try {
      const res = await analyzeLab(msg.lab, msg.opts, msg.outDir);
      process.send({ type: "done", index: msg.index, result: res });
    } catch (e) {
      process.send({ type: "error", index: msg.index, kind: e instanceof DolosError ? "dolos" : "internal", message: e instanceof DolosError ? e.message : e.stack ?? String(e) });
    }
  });
  process.send({ type: "ready" });
}

function runParallel(labs, opts, outDir, jobs) {
  // Biggest labs first, handed out one at a time to `jobs` child processes.
  const sizes = labs.map(l => l.files.reduce((s, f) => s + fs.statSync(f.path).size, 0) * l.files.length);
  const order = labs.map((_, i) => i).sort((x, y) => sizes[y] - sizes[x]);
  const results = new Array(labs.length);
  return new Promise((resolve, reject) => {
    let next = 0;
    let done = 0;
    let failed = false;
    const children = [];
    const give = child => {
      if (next < order.length) {
        const index = order[next++];
        child.send({ type: "lab", index, lab: labs[index], opts, outDir });
      } else {
        child.send({ type: "stop" });
      }
    };
    for (let w = 0; w < jobs; w++) {
      const child = fork(SELF, ["--worker"], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
      children.push(child);
      child.on("message", msg => {
        if (failed) return;
        if (msg.type === "ready") return give(child);
        if (msg.type === "error") {
          failed = true;
          children.forEach(c => c.kill());
          const err = msg.kind === "dolos" ? new DolosError(msg.message) : new Error(msg.message);
          return reject(err);
        }
        results[msg.index] = msg.result;
        if (++done === labs.length) resolve(results);
        give(child);
      });
      child.on("exit", code => {
        if (!failed && code !== 0 && done < labs.length) {
          failed = true;
          children.forEach(c => c.kill());
          reject(new DolosError(`worker process exited with code ${code}`));
        }
      });
    }
  });
}

async function main(argv) {
  if (argv[0] === "--worker") return runWorker();
  if (argv.length !== 2 || argv[0].startsWith("-")) fail(2, "usage: node similarity.mjs MANIFEST.json OUT_DIR");
  const [manifestPath, outDir] = argv;
  let m;
  try {
    m = loadManifest(manifestPath);
  } catch (e) {
    if (e instanceof ManifestError) fail(2, `bad manifest: ${e.message}`);
    throw e;
  }
  try {
    fs.mkdirSync(outDir, { recursive: true });
  } catch (e) {
    fail(2, `cannot create output directory ${outDir}: ${e.message}`);
  }
  const opts = { flagShare: m.flagShare, flagLongest: m.flagLongest, minTokens: m.minTokens, topPerStudent: m.topPerStudent, maxHtml: m.maxHtml, maxFpPct: m.maxFpPct };
  const envJobs = Number.parseInt(process.env.SIMILARITY_JOBS ?? "", 10);
  const cpus = typeof os.availableParallelism === "function" ? os.availableParallelism() : os.cpus().length;
  const jobs = Math.max(1, Math.min(Number.isFinite(envJobs) && envJobs > 0 ? envJobs : cpus, m.labs.length));

  let labs;
  try {
    await lib();
    if (jobs <= 1) {
      labs = [];
      for (const lab of m.labs) labs.push(await analyzeLab(lab, opts, outDir));
    } else {
      labs = await runParallel(m.labs, opts, outDir, jobs);
    }
  } catch (e) {
    if (e instanceof DolosError) fail(3, e.message);
    fail(3, `internal error: ${e.stack ?? e.message}`);
  }

  const out = {
    tool: { name: "dolos", version: await dolosVersion(), package: "@dodona/dolos-lib" },
    flag_share: m.flagShare,
    flag_longest: m.flagLongest,
    min_tokens: m.minTokens,
    max_html: m.maxHtml,
    labs,
  };
  fs.writeFileSync(path.join(outDir, "similarity.json"), JSON.stringify(out, null, 1) + "\n");
  const nFlag = labs.reduce((s, l) => s + l.pairs.filter(p => p.flagged).length, 0);
  process.stderr.write(`similarity: ${labs.length} lab(s), ${nFlag} flagged pair(s); wrote ${path.join(outDir, "similarity.json")}\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === SELF) {
  main(process.argv.slice(2)).catch(e => fail(3, `internal error: ${e.stack ?? e.message}`));
}

export { analyzeLab, loadManifest, ManifestError, DolosError };
