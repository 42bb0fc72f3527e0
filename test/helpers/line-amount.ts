/**
 * What the fixture's (and the demo's) order line amount function gives: the quantity in
 * thousandths, a whole number, times the unit price, rounded (modules/sales/module.ts). The seed's
 * tests compare the seeded lines with it.
 */
export function lineAmount(line: { readonly quantity?: unknown; readonly unit_price?: unknown }): number {
  return Math.round((Math.round((line.quantity as number) * 1000) * (line.unit_price as number)) / 1000);
}
