// WCAG 2.1 AA, success criterion 1.4.3, as the console's browser test checks it:
// every visible text's colour against the background it is drawn on (the
// element's and its ancestors' backgrounds, blended), at least 4.5:1, or 3:1
// for large text (24px, or 18.66px bold). Also: images without alt text.
// Evaluated by Playwright's page.evaluate: one arrow function.
() => {
  const parse = (c) => {
    const m = c.match(/rgba?\(([^)]+)\)/);
    if (!m) return null;
    const p = m[1].split(/[ ,\/]+/).filter(Boolean).map(Number);
    return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
  };
  const blend = (top, under) => ({
    r: top.r * top.a + under.r * (1 - top.a), g: top.g * top.a + under.g * (1 - top.a),
    b: top.b * top.a + under.b * (1 - top.a), a: 1 });
  const lum = ({ r, g, b }) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const background = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c && c.a > 0) { layers.push(c); if (c.a >= 1) break; }
    }
    return layers.reverse().reduce((under, top) => blend(top, under), { r: 255, g: 255, b: 255, a: 1 });
  };
  const seen = new Set(), failures = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const el = walker.currentNode.parentElement;
    if (!walker.currentNode.textContent.trim() || seen.has(el) || el.closest("svg")) continue;
    const style = getComputedStyle(el);
    if (style.visibility === "hidden" || !el.getClientRects().length) continue;
    seen.add(el);
    const bg = background(el), fg = blend(parse(style.color), bg);
    const [hi, lo] = [lum(fg), lum(bg)].sort((x, y) => y - x);
    const ratio = (hi + 0.05) / (lo + 0.05);
    const size = parseFloat(style.fontSize), bold = parseInt(style.fontWeight) >= 700;
    const need = size >= 24 || (bold && size >= 18.66) ? 3 : 4.5;
    if (ratio < need) failures.push(`${el.tagName}.${el.className} "${el.textContent.trim().slice(0, 30)}" ${ratio.toFixed(2)} < ${need}`);
  }
  return { checked: seen.size, failures,
           noAlt: Array.from(document.images).filter((i) => !i.alt.trim()).map((i) => i.src) };
}
