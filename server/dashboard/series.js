// Fixed-capacity sample storage for the plots: a ring buffer per series whose most recent
// `count` values are always one contiguous Float64Array view, so a redraw hands uPlot views
// and copies nothing. Each value is written twice, at p and p + capacity, in a buffer of
// 2·capacity: the window [start, start + count) with start < capacity and count ≤ capacity
// then lies inside the buffer, and every index i ≥ capacity holds the value of i − capacity.

export class Ring {
  constructor(capacity) {
    this.capacity = capacity;
    this.buffer = new Float64Array(2 * capacity);
    this.start = 0;
    this.count = 0;
  }

  push(value) {
    let p;
    if (this.count < this.capacity) {
      p = this.start + this.count;
      if (p >= this.capacity) p -= this.capacity;
      this.count++;
    } else {
      p = this.start;
      this.start = this.start + 1 === this.capacity ? 0 : this.start + 1;
    }
    this.buffer[p] = value;
    this.buffer[p + this.capacity] = value;
  }

  // The retained values, oldest first (a view: valid until the next push).
  view() {
    return this.buffer.subarray(this.start, this.start + this.count);
  }

  last() {
    return this.count ? this.buffer[this.start + this.count - 1] : NaN;
  }

  clear() {
    this.start = 0;
    this.count = 0;
  }
}

// Residuals ≤ 0 (an invariant met exactly, or a model without that level) cannot be drawn on
// a log axis; they are drawn at this floor, below any residual that double precision can
// produce for O(1) quantities (ε ≈ 2.2e-16), and the panel says so.
export const kLogFloor = 1e-18;

// The samples of one session: t, every column, the residual norms and the sample index.
export class SampleTable {
  constructor(columns, capacity, hasInequalities) {
    this.columns = columns; // [{name, unit, kind}]
    this.capacity = capacity;
    this.index = new Ring(capacity);
    this.t = new Ring(capacity);
    this.values = columns.map(() => new Ring(capacity));
    this.residualPosition = new Ring(capacity);
    this.residualVelocity = new Ring(capacity);
    this.residualInequality = hasInequalities ? new Ring(capacity) : null;
    this.floored = { position: new Ring(capacity), velocity: new Ring(capacity), inequality: hasInequalities ? new Ring(capacity) : null };
  }

  get count() {
    return this.t.count;
  }

  // Appends sample `k` of a proto Frame (already parsed to numbers).
  pushSample(sampleIndex, t, valuesRow, rp, rv, ri) {
    this.index.push(sampleIndex);
    this.t.push(t);
    for (let j = 0; j < this.values.length; j++) this.values[j].push(valuesRow[j]);
    this.residualPosition.push(rp);
    this.residualVelocity.push(rv);
    this.floored.position.push(rp > kLogFloor ? rp : kLogFloor);
    this.floored.velocity.push(rv > kLogFloor ? rv : kLogFloor);
    if (this.residualInequality) {
      this.residualInequality.push(ri);
      this.floored.inequality.push(ri > kLogFloor ? ri : kLogFloor);
    }
  }

  columnIndex(name) {
    return this.columns.findIndex((c) => c.name === name);
  }

  // The retained samples as CSV text: sample index, t, every column, the residuals.
  toCsv() {
    const head = ['sample', 't', ...this.columns.map((c) => c.name), 'residual_position', 'residual_velocity'];
    if (this.residualInequality) head.push('residual_inequality');
    const cols = [this.index.view(), this.t.view(), ...this.values.map((r) => r.view()),
      this.residualPosition.view(), this.residualVelocity.view()];
    if (this.residualInequality) cols.push(this.residualInequality.view());
    const lines = [head.join(',')];
    const n = this.count;
    for (let i = 0; i < n; i++) {
      // JavaScript's number-to-string is the shortest text that reads back as the same double.
      lines.push(cols.map((c) => String(c[i])).join(','));
    }
    return lines.join('\n') + '\n';
  }
}
