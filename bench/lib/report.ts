import fs from 'node:fs';
import path from 'node:path';
import type { MachineInfo } from './machine';
import { ROOT } from './server';
import type { Metric, ScenarioResult } from './types';

export const RESULTS_DIR = path.join(ROOT, 'bench/results');

const fmt = (n: number | undefined) =>
  n === undefined ? '' : n >= 100 ? Math.round(n).toLocaleString('en-US') : String(n);

function targetCell(m: Metric): string {
  if (!m.target) return '';
  const met = m.target.op === '>=' ? m.value >= m.target.value : m.value <= m.target.value;
  return `${m.target.op === '>=' ? '≥' : '≤'} ${fmt(m.target.value)} ${met ? '✅' : '❌'}`;
}

export function markdown(machine: MachineInfo, results: ScenarioResult[], peerSetup: string): string {
  const lines = [
    `# Portcullis benchmark — ${machine.date.slice(0, 10)} (${machine.commit})`,
    '',
    `Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGb} GiB; ` +
      `Node.js ${machine.node}; ${machine.postgres}.`,
    `Peer: node-oidc-provider ${machine.versions['oidc-provider']}. ` +
      `Load: autocannon ${machine.versions.autocannon}, loopback only; ` +
      'throughput is the median of three equal measuring windows after a warm-up, ' +
      'latency percentiles are over every response.',
    '',
    '| scenario | measure | value | unit | p50 ms | p95 ms | p99 ms | errors | target | peer | ratio |',
    '| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | --- | ---: | ---: |',
  ];
  for (const r of results) {
    for (const m of r.metrics) {
      const ratio = m.peer ? `${(m.value / m.peer).toFixed(2)}×` : '';
      const cells = [
        r.scenario,
        m.name,
        fmt(m.value),
        m.unit,
        fmt(m.p50),
        fmt(m.p95),
        fmt(m.p99),
        m.errors ?? '',
        targetCell(m),
        fmt(m.peer),
        ratio,
      ];
      lines.push(`| ${cells.join(' | ')} |`);
    }
  }
  const notes = results.flatMap((r) => r.notes.map((n) => `- ${r.scenario}: ${n}`));
  if (notes.length) lines.push('', '## Notes', '', ...notes);
  lines.push('', '## How the peer is configured', '', peerSetup, '', '![throughput](./' + 'CHART' + ')', '');
  return lines.join('\n');
}

/** A horizontal bar chart of every throughput figure (unit ending in /s), Portcullis and peer. */
export function svgChart(results: ScenarioResult[]): string {
  const rows = results.flatMap((r) =>
    r.metrics
      .filter((m) => m.unit.endsWith('/s'))
      .map((m) => ({ label: `${r.scenario}: ${m.name}`, value: m.value, peer: m.peer })),
  );
  const max = Math.max(1, ...rows.flatMap((r) => [r.value, r.peer ?? 0]));
  const rowH = 34;
  const width = 900;
  const labelW = 330;
  const barW = width - labelW - 90;
  const height = rows.length * rowH + 50;
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" ` +
      'font-family="sans-serif" font-size="12">',
    `<text x="10" y="20" font-size="14" font-weight="bold">Throughput (operations per second)</text>`,
    `<rect x="${labelW}" y="28" width="10" height="10" fill="#2563eb"/>` +
      `<text x="${labelW + 14}" y="37">Portcullis</text>`,
    `<rect x="${labelW + 100}" y="28" width="10" height="10" fill="#9ca3af"/>` +
      `<text x="${labelW + 114}" y="37">node-oidc-provider</text>`,
  ];
  rows.forEach((r, i) => {
    const y = 50 + i * rowH;
    const w = (r.value / max) * barW;
    parts.push(`<text x="10" y="${y + 12}">${esc(r.label)}</text>`);
    parts.push(`<rect x="${labelW}" y="${y}" width="${w.toFixed(1)}" height="${r.peer ? 12 : 20}" fill="#2563eb"/>`);
    parts.push(`<text x="${labelW + w + 4}" y="${y + 10}">${fmt(r.value)}</text>`);
    if (r.peer) {
      const pw = (r.peer / max) * barW;
      parts.push(`<rect x="${labelW}" y="${y + 14}" width="${pw.toFixed(1)}" height="12" fill="#9ca3af"/>`);
      parts.push(`<text x="${labelW + pw + 4}" y="${y + 24}">${fmt(r.peer)}</text>`);
    }
  });
  parts.push('</svg>');
  return parts.join('\n');
}

export function writeReport(machine: MachineInfo, results: ScenarioResult[], peerSetup: string): string {
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  // A second run on the same day and commit gets its own files (-2, -3, …) so runs can be compared.
  let base = `${machine.date.slice(0, 10)}-${machine.commit}`;
  for (let n = 2; fs.existsSync(path.join(RESULTS_DIR, `${base}.md`)); n++)
    base = `${machine.date.slice(0, 10)}-${machine.commit}-${n}`;
  const chart = `${base}.svg`;
  fs.writeFileSync(path.join(RESULTS_DIR, chart), svgChart(results));
  fs.writeFileSync(path.join(RESULTS_DIR, `${base}.md`), markdown(machine, results, peerSetup).replace('CHART', chart));
  fs.writeFileSync(path.join(RESULTS_DIR, `${base}.json`), `${JSON.stringify({ machine, results }, null, 2)}\n`);
  return path.join(RESULTS_DIR, `${base}.md`);
}
