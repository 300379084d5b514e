"""What a page looks like to the person in front of it, measured in the browser from the rendered
page: scrolling, elements covering text or controls, touch target sizes, and text contrast (WCAG 2:
relative luminance of the rendered colours; large text is 24 px, or 18.66 px bold)."""

AUDIT_JS = r"""
(within) => {
  const root = document.querySelector(within);
  const out = {scroll: null, covered: [], small: [], lowContrast: [], minTarget: Infinity, minContrast: Infinity,
               minLargeContrast: Infinity, texts: 0, targets: 0};
  const d = document.documentElement;
  out.scroll = {width: d.scrollWidth, height: d.scrollHeight, innerWidth, innerHeight};
  const name = e => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") +
    (e.className && typeof e.className === "string" ? "." + e.className.trim().split(/\s+/).join(".") : "") +
    ` "${(e.innerText || e.value || "").trim().slice(0, 30)}"`;
  const shown = e => {
    const r = e.getBoundingClientRect(), cs = getComputedStyle(e);
    return r.width > 0 && r.height > 0 && cs.visibility !== "hidden" && !e.closest("dialog:not([open])");
  };
  const texts = [...root.querySelectorAll("*")].filter(e => shown(e) && e.tagName !== "SCRIPT" &&
    [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim()));
  const controls = [...root.querySelectorAll("button, [role=button], input, select, a[href]")].filter(shown);
  // Covered: at points across each text and control, the topmost element is itself or inside it. Cards of
  // one spread hand may cover part of each other (the index corner stays in view).
  for (const e of new Set([...texts, ...controls])) {
    const r = e.getBoundingClientRect();
    for (const [fx, fy] of [[0.5, 0.5], [0.15, 0.25], [0.85, 0.25], [0.15, 0.75], [0.85, 0.75]]) {
      const x = r.left + r.width * fx, y = r.top + r.height * fy;
      if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) { out.covered.push(name(e) + " is off the screen"); break; }
      const top = document.elementFromPoint(x, y);
      if (!top || top === e || e.contains(top)) continue;
      const card = e.closest(".card"), over = top.closest(".card");
      if (card && over && card.parentElement === over.parentElement) continue;
      out.covered.push(`${name(e)} under ${name(top)}`);
      break;
    }
  }
  for (const e of controls) {
    const r = e.getBoundingClientRect();
    out.targets++;
    out.minTarget = Math.min(out.minTarget, r.width, r.height);
    if (r.width < 44 || r.height < 44) out.small.push(`${name(e)} ${r.width.toFixed(0)}x${r.height.toFixed(0)}`);
  }
  const rgba = text => { const m = text.match(/[\d.]+/g).map(Number); return [m[0], m[1], m[2], m.length > 3 ? m[3] : 1]; };
  const over = (top, under) => top.slice(0, 3).map((c, i) => c * top[3] + under[i] * (1 - top[3])).concat(1);
  const background = e => {  // the colours behind e, blended from the page up
    const layers = [];
    for (let p = e; p; p = p.parentElement) layers.push(rgba(getComputedStyle(p).backgroundColor));
    return layers.reverse().reduce((under, top) => over(top, under), [255, 255, 255, 1]);
  };
  const lum = c => { const [r, g, b] = c.slice(0, 3).map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
                     return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  for (const e of texts) {
    if (e.closest(":disabled")) continue;  // disabled controls are exempt
    const cs = getComputedStyle(e), bg = background(e), fg = over(rgba(cs.color), bg);
    const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a), ratio = (hi + 0.05) / (lo + 0.05);
    const size = parseFloat(cs.fontSize), large = size >= 24 || (size >= 18.66 && Number(cs.fontWeight) >= 700);
    out.texts++;
    if (large) out.minLargeContrast = Math.min(out.minLargeContrast, ratio); else out.minContrast = Math.min(out.minContrast, ratio);
    if (ratio < (large ? 3 : 4.5)) out.lowContrast.push(`${name(e)} ${ratio.toFixed(2)}:1 at ${size}px`);
  }
  return out;
}
"""


def audit(page, within: str = "body") -> dict:
    """The page's measures, over what ``within`` holds (an open modal dialog: what the person can reach)."""
    return page.evaluate(AUDIT_JS, within)


def problems(found: dict) -> list[str]:
    s = found["scroll"]
    scrolls = [f"scrolls: page {s['width']}x{s['height']} in {s['innerWidth']}x{s['innerHeight']}"] \
        if s["width"] > s["innerWidth"] or s["height"] > s["innerHeight"] else []
    return scrolls + found["covered"] + [f"small target {x}" for x in found["small"]] + \
        [f"low contrast {x}" for x in found["lowContrast"]]


FIT_JS = r"""
() => {
  // Nothing scrolls, nothing is clipped: every text, amount, card index and control is inside the window and
  // inside every box that clips it, and no text overflows its own box; each card index of a spread hand ends
  // before the next card begins (a "10" never runs into its neighbour).
  const d = document.documentElement, out = {problems: [], way: null, seat: null};
  const say = e => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") +
    (typeof e.className === "string" && e.className.trim() ? "." + e.className.trim().split(/\s+/).join(".") : "") +
    ` "${(e.innerText || e.textContent || "").trim().replace(/\s+/g, " ").slice(0, 30)}"`;
  if (d.scrollWidth > innerWidth || d.scrollHeight > innerHeight || document.body.scrollHeight > innerHeight)
    out.problems.push(`scrolls: ${d.scrollWidth}x${d.scrollHeight} in ${innerWidth}x${innerHeight}`);
  const shown = e => { const r = e.getBoundingClientRect(), cs = getComputedStyle(e);
    return r.width > 0 && r.height > 0 && cs.visibility !== "hidden" && !e.closest("dialog:not([open])"); };
  const modal = document.querySelector("dialog[open]");
  const scope = modal || document.body;
  const texts = [...scope.querySelectorAll("*")].filter(e => e.tagName !== "SCRIPT" && shown(e) &&
    ([...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim()) || e.matches("button, input, select")));
  const inside = (r, c) => r.left >= c.left - 0.5 && r.right <= c.right + 0.5 && r.top >= c.top - 0.5 && r.bottom <= c.bottom + 0.5;
  const win = {left: 0, top: 0, right: innerWidth, bottom: innerHeight};
  for (const e of texts) {
    const r = e.getBoundingClientRect();
    if (!inside(r, win)) { out.problems.push(`${say(e)} is outside the window`); continue; }
    if (e.clientWidth && (e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1))
      out.problems.push(`${say(e)} overflows its box (${e.scrollWidth}x${e.scrollHeight} in ${e.clientWidth}x${e.clientHeight})`);
    for (let p = e.parentElement; p && p !== document.body; p = p.parentElement) {
      const cs = getComputedStyle(p);
      if (cs.overflowX !== "visible" || cs.overflowY !== "visible") {
        if (!inside(r, p.getBoundingClientRect())) { out.problems.push(`${say(e)} is clipped by ${say(p)}`); break; }
      }
    }
  }
  if (!modal) {
    for (const box of document.querySelectorAll("#table .cards")) {
      const cards = [...box.children];
      cards.forEach((c, i) => {
        const cr = c.getBoundingClientRect(), next = cards[i + 1] && cards[i + 1].getBoundingClientRect();
        for (const part of c.children) {
          const r = part.getBoundingClientRect();
          if (!inside(r, cr)) out.problems.push(`card ${c.dataset.card}: its ${part.className} "${part.textContent}" leaves the card`);
          if (next && r.right > next.left + 0.5) out.problems.push(`card ${c.dataset.card}: "${part.textContent}" runs into the next card`);
        }
        if (!inside(cr, box.closest(".zone").getBoundingClientRect())) out.problems.push(`card ${c.dataset.card} leaves its tile`);
      });
    }
    const full = sel => [...document.querySelectorAll(sel)].map(c => c.getBoundingClientRect().width);
    const way = full("#banker .side.way .cards > .card:last-child"), seat = full("#table .zone:not(#banker) .cards > .card:last-child");
    out.way = way.length ? Math.min(...way) : null;
    out.seat = seat.length ? Math.max(...seat) : null;
  }
  return out;
}
"""


def fit(page) -> dict:
    """Whether the page fits its window: ``problems`` (scrolling, anything clipped or overflowing, a card's
    index running into the next card), the narrowest whole card of the house way and the widest of the seats (px)."""
    return page.evaluate(FIT_JS)
