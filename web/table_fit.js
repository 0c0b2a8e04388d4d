// A wide table made to fit its card without a sideways scroll, as the CLI's tables fit the terminal
// (cli/table.h, render_fitted): columns are left out one at a time, the lowest priority first, until the
// table is no wider than its card, and the caller says which went. What the reader chose with the column
// chooser stays chosen: the columns come back as soon as the card is wide enough again.
export class TableFit {
  constructor(card) {
    this.card = card;
    this.width = -1;
    this.key = '';
    this.dropped = [];
    this.tight = false;  // whether the table's heads may wrap (class 'tight')
  }

  // render(dropped) draws `table` without the columns in the Set `dropped`; `key` names what is drawn (the
  // columns chosen), and `order` the keys that may go, first to go first. A fit found for this width and key
  // is where the next one starts (a live update redraws without measuring again unless the rows grew wider).
  // Returns the keys left out, in `order`'s order.
  fit(table, key, order, render) {
    const width = this.card.clientWidth;
    if (width !== this.width || key !== this.key) Object.assign(this, { width, key, dropped: [], tight: false });
    table.classList.toggle('tight', this.tight);
    render(new Set(this.dropped));
    if (width <= 0) return [];  // not laid out (a hidden page): nothing to measure against
    // First the long heads ("final val loss") wrap onto lines of their own; only then do columns go.
    if (!this.tight && table.offsetWidth > width) {
      this.tight = true;
      table.classList.add('tight');
    }
    for (const k of order) {
      if (table.offsetWidth <= width) break;
      if (this.dropped.includes(k)) continue;
      this.dropped.push(k);
      render(new Set(this.dropped));
    }
    return order.filter((k) => this.dropped.includes(k));
  }
}
