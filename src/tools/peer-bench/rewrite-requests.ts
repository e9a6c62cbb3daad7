// Scenario e's chat: the user attaches a TypeScript module and asks for a small change to one
// of its functions (15–30 lines), the reply rewrites the whole function with the change in it,
// and the user applies it before the next turn. Most of each reply copies code the context
// already holds, the way an editing chat goes; the edits applied are fixed (what a correct
// reply says), not the model's reply, so both sides see the same files.

import type { WorkspaceTurn } from "./editing-workspace";

const HEADER = `// Order handling for the shop backend.

export interface OrderLine {
  readonly sku: string;
  readonly quantity: number;
  readonly unitPriceCents: number;
}

export interface Order {
  readonly id: string;
  readonly customerId: string;
  readonly lines: OrderLine[];
  readonly createdAt: Date;
  status: "open" | "paid" | "shipped" | "cancelled";
}
`;

/** The module's functions by name, in file order. */
const FUNCTIONS: ReadonlyArray<readonly [string, string]> = [
  [
    "orderTotal",
    `export function orderTotal(order: Order, taxRate: number): number {
  let subtotal = 0;
  for (const line of order.lines) {
    if (line.quantity <= 0) {
      throw new Error(\`line \${line.sku} has a quantity of \${line.quantity}\`);
    }
    subtotal += line.quantity * line.unitPriceCents;
  }
  const tax = Math.round(subtotal * taxRate);
  return subtotal + tax;
}
`,
  ],
  [
    "mergeLines",
    `export function mergeLines(lines: OrderLine[]): OrderLine[] {
  const bySku = new Map<string, OrderLine>();
  for (const line of lines) {
    const existing = bySku.get(line.sku);
    if (existing) {
      bySku.set(line.sku, {
        sku: line.sku,
        quantity: existing.quantity + line.quantity,
        unitPriceCents: existing.unitPriceCents,
      });
    } else {
      bySku.set(line.sku, line);
    }
  }
  return [...bySku.values()];
}
`,
  ],
  [
    "cancelOrder",
    `export function cancelOrder(order: Order, now: Date): Order {
  if (order.status === "shipped") {
    throw new Error(\`order \${order.id} has shipped and cannot be cancelled\`);
  }
  if (order.status === "cancelled") {
    return order;
  }
  const ageMs = now.getTime() - order.createdAt.getTime();
  if (ageMs > 14 * 24 * 60 * 60 * 1000) {
    throw new Error(\`order \${order.id} is older than 14 days\`);
  }
  return { ...order, status: "cancelled" };
}
`,
  ],
  [
    "ordersByCustomer",
    `export function ordersByCustomer(orders: Order[]): Map<string, Order[]> {
  const result = new Map<string, Order[]>();
  for (const order of orders) {
    const list = result.get(order.customerId);
    if (list) {
      list.push(order);
    } else {
      result.set(order.customerId, [order]);
    }
  }
  for (const list of result.values()) {
    list.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  }
  return result;
}
`,
  ],
  [
    "formatOrder",
    `export function formatOrder(order: Order, taxRate: number): string {
  const lines = order.lines.map((line) => {
    const amount = (line.quantity * line.unitPriceCents) / 100;
    return \`  \${line.sku.padEnd(12)} x\${String(line.quantity).padStart(3)}  \${amount.toFixed(2)}\`;
  });
  const total = orderTotal(order, taxRate) / 100;
  return [
    \`Order \${order.id} (\${order.status})\`,
    ...lines,
    \`  total: \${total.toFixed(2)}\`,
  ].join("\\n");
}
`,
  ],
];

interface RewriteRequest {
  readonly request: string;
  readonly replaces: string;
  /** The function after the edit. */
  readonly code: string;
}

const ASK = "Reply with the complete updated function in a TypeScript code block.";

const EDITS: readonly RewriteRequest[] = [
  {
    request: `In orderTotal, also refuse a negative tax rate with an Error. ${ASK}`,
    replaces: "orderTotal",
    code: `export function orderTotal(order: Order, taxRate: number): number {
  if (taxRate < 0) {
    throw new Error(\`tax rate \${taxRate} is negative\`);
  }
  let subtotal = 0;
  for (const line of order.lines) {
    if (line.quantity <= 0) {
      throw new Error(\`line \${line.sku} has a quantity of \${line.quantity}\`);
    }
    subtotal += line.quantity * line.unitPriceCents;
  }
  const tax = Math.round(subtotal * taxRate);
  return subtotal + tax;
}
`,
  },
  {
    request: `mergeLines should refuse two lines of the same SKU with different unit prices. ${ASK}`,
    replaces: "mergeLines",
    code: `export function mergeLines(lines: OrderLine[]): OrderLine[] {
  const bySku = new Map<string, OrderLine>();
  for (const line of lines) {
    const existing = bySku.get(line.sku);
    if (existing) {
      if (existing.unitPriceCents !== line.unitPriceCents) {
        throw new Error(\`SKU \${line.sku} has two unit prices\`);
      }
      bySku.set(line.sku, {
        sku: line.sku,
        quantity: existing.quantity + line.quantity,
        unitPriceCents: existing.unitPriceCents,
      });
    } else {
      bySku.set(line.sku, line);
    }
  }
  return [...bySku.values()];
}
`,
  },
  {
    request: `Make the 14-day limit in cancelOrder a parameter maxAgeDays with a default of 14. ${ASK}`,
    replaces: "cancelOrder",
    code: `export function cancelOrder(order: Order, now: Date, maxAgeDays = 14): Order {
  if (order.status === "shipped") {
    throw new Error(\`order \${order.id} has shipped and cannot be cancelled\`);
  }
  if (order.status === "cancelled") {
    return order;
  }
  const ageMs = now.getTime() - order.createdAt.getTime();
  if (ageMs > maxAgeDays * 24 * 60 * 60 * 1000) {
    throw new Error(\`order \${order.id} is older than \${maxAgeDays} days\`);
  }
  return { ...order, status: "cancelled" };
}
`,
  },
  {
    request: `ordersByCustomer should leave out cancelled orders. ${ASK}`,
    replaces: "ordersByCustomer",
    code: `export function ordersByCustomer(orders: Order[]): Map<string, Order[]> {
  const result = new Map<string, Order[]>();
  for (const order of orders) {
    if (order.status === "cancelled") {
      continue;
    }
    const list = result.get(order.customerId);
    if (list) {
      list.push(order);
    } else {
      result.set(order.customerId, [order]);
    }
  }
  for (const list of result.values()) {
    list.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  }
  return result;
}
`,
  },
  {
    request: `In formatOrder, print the order's creation date (ISO format) after its status. ${ASK}`,
    replaces: "formatOrder",
    code: `export function formatOrder(order: Order, taxRate: number): string {
  const lines = order.lines.map((line) => {
    const amount = (line.quantity * line.unitPriceCents) / 100;
    return \`  \${line.sku.padEnd(12)} x\${String(line.quantity).padStart(3)}  \${amount.toFixed(2)}\`;
  });
  const total = orderTotal(order, taxRate) / 100;
  return [
    \`Order \${order.id} (\${order.status}, \${order.createdAt.toISOString()})\`,
    ...lines,
    \`  total: \${total.toFixed(2)}\`,
  ].join("\\n");
}
`,
  },
  {
    request: `Rename the variable subtotal to netCents in orderTotal. ${ASK}`,
    replaces: "orderTotal",
    code: `export function orderTotal(order: Order, taxRate: number): number {
  if (taxRate < 0) {
    throw new Error(\`tax rate \${taxRate} is negative\`);
  }
  let netCents = 0;
  for (const line of order.lines) {
    if (line.quantity <= 0) {
      throw new Error(\`line \${line.sku} has a quantity of \${line.quantity}\`);
    }
    netCents += line.quantity * line.unitPriceCents;
  }
  const tax = Math.round(netCents * taxRate);
  return netCents + tax;
}
`,
  },
  {
    request: `cancelOrder should also refuse an order that is already paid unless a flag allowPaid is true (default false). ${ASK}`,
    replaces: "cancelOrder",
    code: `export function cancelOrder(order: Order, now: Date, maxAgeDays = 14, allowPaid = false): Order {
  if (order.status === "shipped") {
    throw new Error(\`order \${order.id} has shipped and cannot be cancelled\`);
  }
  if (order.status === "paid" && !allowPaid) {
    throw new Error(\`order \${order.id} is paid\`);
  }
  if (order.status === "cancelled") {
    return order;
  }
  const ageMs = now.getTime() - order.createdAt.getTime();
  if (ageMs > maxAgeDays * 24 * 60 * 60 * 1000) {
    throw new Error(\`order \${order.id} is older than \${maxAgeDays} days\`);
  }
  return { ...order, status: "cancelled" };
}
`,
  },
  {
    request: `In mergeLines, skip lines whose quantity is zero. ${ASK}`,
    replaces: "mergeLines",
    code: `export function mergeLines(lines: OrderLine[]): OrderLine[] {
  const bySku = new Map<string, OrderLine>();
  for (const line of lines) {
    if (line.quantity === 0) {
      continue;
    }
    const existing = bySku.get(line.sku);
    if (existing) {
      if (existing.unitPriceCents !== line.unitPriceCents) {
        throw new Error(\`SKU \${line.sku} has two unit prices\`);
      }
      bySku.set(line.sku, {
        sku: line.sku,
        quantity: existing.quantity + line.quantity,
        unitPriceCents: existing.unitPriceCents,
      });
    } else {
      bySku.set(line.sku, line);
    }
  }
  return [...bySku.values()];
}
`,
  },
];

/** Turn i (0-based) attaches the module with edits 0..i−1 applied and asks for edit i. */
export function rewriteSession(turns: number): WorkspaceTurn[] {
  const functions = new Map(FUNCTIONS);
  const result: WorkspaceTurn[] = [];
  for (let i = 0; i < turns; i++) {
    const edit = EDITS[i % EDITS.length];
    result.push({ fileName: "orders.ts", language: "typescript", content: `${HEADER}\n${[...functions.values()].join("\n")}`, question: edit.request });
    functions.set(edit.replaces, edit.code);
  }
  return result;
}
