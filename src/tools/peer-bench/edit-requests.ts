// Scenario e's chat: the user asks for a change to the attached file, the reply rewrites the
// changed function (or the file), and the user applies the change before the next turn, so
// each turn's file is the previous one with that edit in it. The edits applied are fixed
// (what a correct reply says), not the model's reply, so both sides see the same files.

import { INVENTORY_FUNCTIONS, INVENTORY_HEADER, type WorkspaceTurn } from "./editing-workspace";

interface EditRequest {
  readonly request: string;
  /** The function (by name) the edit replaces, or undefined to append a new one. */
  readonly replaces?: string;
  readonly code: string;
}

const EDITS: readonly EditRequest[] = [
  {
    request: "Add a docstring to total_value and make it skip items with a negative quantity. Reply with the complete updated function in a Python code block.",
    replaces: "total_value",
    code: `def total_value(items):
    """Total stock value in cents, ignoring items with a negative quantity."""
    return sum(item.price_cents * item.quantity for item in items if item.quantity >= 0)
`,
  },
  {
    request: "Make low_stock return the items sorted by quantity, lowest first. Rewrite the function.",
    replaces: "low_stock",
    code: `def low_stock(items, threshold=5):
    low = [item for item in items if item.quantity < threshold]
    return sorted(low, key=lambda item: item.quantity)
`,
  },
  {
    request: "Rewrite find_by_sku with next() and a generator expression, keeping the same behaviour. Show the whole function.",
    replaces: "find_by_sku",
    code: `def find_by_sku(items, sku):
    return next((item for item in items if item.sku == sku), None)
`,
  },
  {
    request: "restock should also refuse amounts above 1000 with a ValueError. Rewrite restock.",
    replaces: "restock",
    code: `def restock(item, amount):
    if amount <= 0:
        raise ValueError("amount must be positive")
    if amount > 1000:
        raise ValueError("amount must be at most 1000")
    item.quantity += amount
    return item
`,
  },
  {
    request: "apply_discount should raise ValueError unless 0 <= percent <= 100. Rewrite the function.",
    replaces: "apply_discount",
    code: `def apply_discount(item, percent):
    if not 0 <= percent <= 100:
        raise ValueError("percent must be between 0 and 100")
    item.price_cents = item.price_cents * (100 - percent) // 100
    return item
`,
  },
  {
    request: "Add a function remove_sold_out(items) that returns the items whose quantity is above zero. Reply with the new function.",
    code: `def remove_sold_out(items):
    return [item for item in items if item.quantity > 0]
`,
  },
  {
    request: "Add type hints to total_value and low_stock (items is a list of Item). Show both functions.",
    replaces: "total_value",
    code: `def total_value(items: list[Item]) -> int:
    """Total stock value in cents, ignoring items with a negative quantity."""
    return sum(item.price_cents * item.quantity for item in items if item.quantity >= 0)
`,
  },
  {
    request: "Now rewrite the whole file with the type hints on every function. Reply with the complete file.",
    replaces: "low_stock",
    code: `def low_stock(items: list[Item], threshold: int = 5) -> list[Item]:
    low = [item for item in items if item.quantity < threshold]
    return sorted(low, key=lambda item: item.quantity)
`,
  },
  {
    request: "Add a function stock_report(items) that returns one line per item: sku, name and quantity separated by tabs. Reply with the function.",
    code: `def stock_report(items):
    return "\\n".join(f"{item.sku}\\t{item.name}\\t{item.quantity}" for item in items)
`,
  },
  {
    request: "Make restock accept an optional note and append it to a module-level RESTOCK_LOG list. Rewrite restock and show where RESTOCK_LOG is defined.",
    replaces: "restock",
    code: `RESTOCK_LOG = []


def restock(item, amount, note=None):
    if amount <= 0:
        raise ValueError("amount must be positive")
    if amount > 1000:
        raise ValueError("amount must be at most 1000")
    item.quantity += amount
    if note:
        RESTOCK_LOG.append((item.sku, amount, note))
    return item
`,
  },
];

const functionName = (code: string) => /^def (\w+)/m.exec(code)?.[1];

function applyEdit(functions: string[], edit: EditRequest): void {
  const at = edit.replaces ? functions.findIndex((f) => functionName(f) === edit.replaces) : -1;
  if (at >= 0) functions[at] = edit.code;
  else if (!functions.some((f) => f === edit.code)) functions.push(edit.code);
}

/** Turn i (0-based) attaches the file with edits 0..i−1 applied and asks for edit i. */
export function editRequestSession(turns: number): WorkspaceTurn[] {
  const functions = [...INVENTORY_FUNCTIONS];
  const result: WorkspaceTurn[] = [];
  for (let i = 0; i < turns; i++) {
    const edit = EDITS[i % EDITS.length];
    result.push({ fileName: "inventory.py", language: "python", content: `${INVENTORY_HEADER}\n${functions.join("\n\n")}`, question: edit.request });
    applyEdit(functions, edit);
  }
  return result;
}
