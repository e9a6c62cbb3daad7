// Scenario c's workspace: one source file that the user edits between turns while asking
// about it. Each turn applies a small, deterministic edit (a changed constant, a renamed
// variable, a new function), the way a file changes during a coding session.

export interface WorkspaceTurn {
  readonly fileName: string;
  readonly language: string;
  readonly content: string;
  readonly question: string;
}

/** The file both editing scenarios start from. */
export const INVENTORY_HEADER = `"""Inventory helpers for the shop backend."""

from dataclasses import dataclass


@dataclass
class Item:
    sku: str
    name: str
    price_cents: int
    quantity: int

`;

export const INVENTORY_FUNCTIONS: readonly string[] = [
  `def total_value(items):
    return sum(item.price_cents * item.quantity for item in items)
`,
  `def low_stock(items, threshold=5):
    return [item for item in items if item.quantity < threshold]
`,
  `def find_by_sku(items, sku):
    for item in items:
        if item.sku == sku:
            return item
    return None
`,
  `def restock(item, amount):
    if amount <= 0:
        raise ValueError("amount must be positive")
    item.quantity += amount
    return item
`,
  `def apply_discount(item, percent):
    item.price_cents = item.price_cents * (100 - percent) // 100
    return item
`,
];

const QUESTIONS: readonly string[] = [
  "What does this file do?",
  "Is total_value correct for empty lists?",
  "I changed the threshold. Does low_stock still make sense?",
  "Could find_by_sku be faster?",
  "What should restock do with a negative amount?",
  "Is the discount rounding right?",
  "I added a function. What does it do?",
  "Suggest a better name for it.",
  "What tests would you write for this file?",
  "Any bugs in the latest change?",
];

/** The file as it is before turn `turn` (1-based): the base plus one more edit per turn. */
function fileAt(turn: number): string {
  const functions = [...INVENTORY_FUNCTIONS];
  for (let t = 2; t <= turn; t++) {
    const k = t % 3;
    if (k === 0) {
      // Tune a constant in one function.
      functions[1] = functions[1].replace(/threshold=\d+/, `threshold=${3 + t}`);
    } else if (k === 1) {
      // Rename a local in another.
      functions[2] = functions[2].replace(/for \w+ in items:\n(\s+)if \w+\.sku == sku:\n(\s+)return \w+/, `for entry${t} in items:\n$1if entry${t}.sku == sku:\n$2return entry${t}`);
    } else {
      // Add a small function (the file grows slowly, as real files do).
      functions.push(`def count_${t}(items):
    return len([item for item in items if item.quantity > ${t}])
`);
    }
  }
  return INVENTORY_HEADER + "\n" + functions.join("\n\n");
}

export function editingSession(turns: number): WorkspaceTurn[] {
  return Array.from({ length: turns }, (_, i) => ({
    fileName: "inventory.py",
    language: "python",
    content: fileAt(i + 1),
    question: QUESTIONS[i % QUESTIONS.length],
  }));
}
