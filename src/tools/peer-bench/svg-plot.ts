// A small line chart as SVG text (no dependency, no online service): one series per run,
// x = turn, y = the value, with axes, ticks and a legend. Readable on light and dark pages.

export interface Series {
  readonly label: string;
  readonly points: ReadonlyArray<readonly [x: number, y: number]>;
}

const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];
const W = 640;
const H = 320;
const M = { left: 56, right: 16, top: 36, bottom: 44 };

function niceMax(value: number): number {
  if (value <= 0) return 1;
  const step = 10 ** Math.floor(Math.log10(value));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * step >= value) return m * step;
  return 10 * step;
}

const escape = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

export function lineChart(title: string, xLabel: string, yLabel: string, series: readonly Series[]): string {
  const xs = series.flatMap((s) => s.points.map((p) => p[0]));
  const ys = series.flatMap((s) => s.points.map((p) => p[1]));
  const xMax = Math.max(1, ...xs);
  const yMax = niceMax(Math.max(0, ...ys));
  const px = (x: number) => M.left + ((x - 1) / Math.max(1, xMax - 1)) * (W - M.left - M.right);
  const py = (y: number) => H - M.bottom - (y / yMax) * (H - M.top - M.bottom);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" font-family="sans-serif" font-size="11">`,
    `<rect width="${W}" height="${H}" fill="#ffffff"/>`,
    `<text x="${W / 2}" y="18" text-anchor="middle" font-size="13" fill="#222">${escape(title)}</text>`,
  ];
  for (let i = 0; i <= 4; i++) {
    const y = (yMax * i) / 4;
    out.push(`<line x1="${M.left}" x2="${W - M.right}" y1="${py(y)}" y2="${py(y)}" stroke="#e5e5e5"/>`);
    out.push(`<text x="${M.left - 6}" y="${py(y) + 4}" text-anchor="end" fill="#444">${+y.toFixed(1)}</text>`);
  }
  const xStep = Math.max(1, Math.ceil(xMax / 10));
  for (let x = 1; x <= xMax; x += xStep) {
    out.push(`<text x="${px(x)}" y="${H - M.bottom + 16}" text-anchor="middle" fill="#444">${x}</text>`);
  }
  out.push(`<line x1="${M.left}" x2="${M.left}" y1="${M.top}" y2="${H - M.bottom}" stroke="#888"/>`);
  out.push(`<line x1="${M.left}" x2="${W - M.right}" y1="${H - M.bottom}" y2="${H - M.bottom}" stroke="#888"/>`);
  out.push(`<text x="${W / 2}" y="${H - 8}" text-anchor="middle" fill="#222">${escape(xLabel)}</text>`);
  out.push(`<text transform="translate(14 ${H / 2}) rotate(-90)" text-anchor="middle" fill="#222">${escape(yLabel)}</text>`);
  series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length];
    const path = s.points.map((p, j) => `${j ? "L" : "M"}${px(p[0]).toFixed(1)},${py(p[1]).toFixed(1)}`).join(" ");
    out.push(`<path d="${path}" fill="none" stroke="${color}" stroke-width="2"/>`);
    const lx = M.left + 10 + i * 150;
    out.push(`<rect x="${lx}" y="${M.top - 4}" width="12" height="3" fill="${color}"/>`);
    out.push(`<text x="${lx + 16}" y="${M.top}" fill="#222">${escape(s.label)}</text>`);
  });
  out.push("</svg>");
  return `${out.join("\n")}\n`;
}
