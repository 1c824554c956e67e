import type { ComponentChildren, JSX } from 'preact';

/** A column's heading; `{ num }` for a column of numbers, whose heading aligns right as its cells do. */
export type Heading = string | { readonly num: string };

/** Headings of columns of numbers, for the tail of a table's `head`. */
export const numeric = (...names: readonly string[]): Heading[] => names.map((num) => ({ num }));

type TableAttributes = Omit<JSX.HTMLAttributes<HTMLTableElement>, 'children' | 'caption'>;

/**
 * Every listing of the console: a caption (kept for screen readers when `hideCaption`), one row
 * of column headings, the rows given as children, and a wrapper that scrolls sideways on a narrow
 * screen instead of widening the page. Attributes such as `data-testid` go to the table itself.
 */
export function Table({
  caption,
  hideCaption = false,
  head,
  children,
  ...table
}: TableAttributes & {
  caption: ComponentChildren;
  hideCaption?: boolean;
  head: readonly Heading[];
  children: ComponentChildren;
}) {
  return (
    <div class="table-wrap">
      <table {...table}>
        <caption class={hideCaption ? 'visually-hidden' : undefined}>{caption}</caption>
        <thead>
          <tr>
            {head.map((h) =>
              typeof h === 'string' ? (
                <th scope="col">{h}</th>
              ) : (
                <th scope="col" class="num">
                  {h.num}
                </th>
              ),
            )}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
