/** A plain-text table: the first column left-aligned, the others right-aligned. */
export function table(header: readonly string[], rows: ReadonlyArray<readonly (string | number)[]>): string {
  const cells = [header, ...rows].map((r) =>
    r.map((c) => (typeof c === 'number' ? c.toLocaleString('en-US', { maximumFractionDigits: 2 }) : c)),
  );
  const widths = header.map((_, col) => Math.max(...cells.map((r) => (r[col] ?? '').length)));
  const line = (r: readonly string[]) =>
    r
      .map((c, col) => (col === 0 ? c.padEnd(widths[col]!) : c.padStart(widths[col]!)))
      .join('  ')
      .trimEnd();
  return [line(cells[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

export function section(title: string): string {
  return `\n== ${title} ${'='.repeat(Math.max(0, 76 - title.length))}`;
}
