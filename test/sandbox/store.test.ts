// The one record store: every change goes through it and is counted and saved by it (no caller
// pairs keeping a record with telling the saver), the oldest records go first past the record limit
// or the byte budget, and each product's slice is saved and restored as the state file holds it.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PRODUCTS } from "../../sandbox/products/index.js";
import { ByteBudget, jsonBytes } from "../../sandbox/state/byte-budget.js";
import { type ProductSlice, RecordStore } from "../../sandbox/state/store.js";

const BY_ID: ProductSlice<number, { id: number; note: string }> = {
  name: "by-id",
  saved: { form: "entries" },
  restorable: () => true,
};
const ALONE: ProductSlice<string, { key: string; note: string }> = {
  name: "alone",
  saved: { form: "values", keyOf: (r) => r.key },
  restorable: () => true,
};

function store(options: { maxRecords?: number; maxBytes?: number } = {}) {
  const told = { changed: 0, forgotten: [] as string[] };
  const budget = new ByteBudget(options.maxBytes ?? Infinity);
  const records = new RecordStore({
    budget,
    maxRecords: options.maxRecords ?? 1000,
    changed: () => told.changed++,
    forgotten: (kind, key) => told.forgotten.push(`${kind}:${String(key)}`),
  });
  return { records, budget, told };
}

describe("the record store", () => {
  it("tells the saver of every put and forget, and counts a record kept again as it now is", () => {
    const { records, budget, told } = store();
    const record = { id: 1, note: "a" };
    records.put(BY_ID, 1, record);
    expect(told.changed).toBe(1);
    expect(budget.used).toBe(jsonBytes(record));
    record.note = "a longer note";
    records.put(BY_ID, 1, record);
    expect(told.changed).toBe(2);
    expect(budget.used).toBe(jsonBytes(record));
    expect(records.bytes).toBe(jsonBytes(record));
    records.forget(BY_ID, 1);
    expect(told.changed).toBe(3);
    expect(records.get(BY_ID, 1)).toBeUndefined();
    expect(budget.used).toBe(0);
  });

  it("forgets the oldest first past the record limit, whatever their slice", () => {
    const { records, told } = store({ maxRecords: 2 });
    records.put(BY_ID, 1, { id: 1, note: "" });
    records.put(ALONE, "k", { key: "k", note: "" });
    records.put(BY_ID, 2, { id: 2, note: "" });
    expect(told.forgotten).toEqual(["by-id:1"]);
    expect([...records.records(BY_ID).keys()]).toEqual([2]);
    expect([...records.records(ALONE).keys()]).toEqual(["k"]);
  });

  it("saves and restores each slice in the form the state file holds it, in order", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.nat(), { maxLength: 20 }),
        fc.array(fc.string(), { maxLength: 20 }),
        (ids, keys) => {
          const { records } = store();
          for (const id of ids) records.put(BY_ID, id, { id, note: `n${id}` });
          for (const key of new Set(keys)) records.put(ALONE, key, { key, note: key });
          const again = store().records;
          again.restore(BY_ID, records.saved(BY_ID));
          again.restore(ALONE, records.saved(ALONE));
          expect(again.saved(BY_ID)).toEqual(records.saved(BY_ID));
          expect(again.saved(ALONE)).toEqual(records.saved(ALONE));
          expect(again.bytes).toBe(records.bytes);
        },
      ),
    );
  });

  it("lists every product once, by the name of its member of the state file", () => {
    const names = PRODUCTS.map((p) => p.name);
    expect(names).toEqual(["biometric", "manual", "pep", "fraud", "property", "kyb", "edd", "workflow"]);
  });
});
